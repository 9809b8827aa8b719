"""The rules modules shipped with Refit, a package each: its data (module.json) and any
procedure only it has (KGP's bookkeeping). The Campaign knows only the Module interface
(domain/rules/module.py); infra/modules.py reads each package's data."""

from __future__ import annotations

from types import ModuleType

from domain.modules import abtf, kgp, pbr
from domain.rules import Module

PACKAGES: dict[str, ModuleType] = {"abtf": abtf, "pbr": pbr, "kgp": kgp}
DATA_FILE = "module.json"  # each package's data


def module_class(module_id: str) -> type[Module]:
    """The Module class for a module's data: its package's, else the generic one."""
    package = PACKAGES.get(module_id)
    kind: type[Module] = package.MODULE if package is not None else Module
    return kind
