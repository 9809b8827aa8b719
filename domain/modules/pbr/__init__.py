"""PBr (Pegasus Bridge, 3.x): its data (module.json), which the generic Module applies
whole."""

from domain.rules import Module

MODULE = Module
