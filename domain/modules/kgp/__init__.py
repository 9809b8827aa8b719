"""KGP (Kampfgruppe Peiper, Chapter P, 8.x): its data and its campaign bookkeeping."""

from domain.modules.kgp.module import KGPModule

MODULE = KGPModule
