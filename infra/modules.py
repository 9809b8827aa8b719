"""Load the rules modules: the packaged files, then an owner's files from the module dir."""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from domain.campaign.pinning import ModuleData
from domain.errors import ModuleFileError
from domain.hashing import data_hash
from domain.modules import DATA_FILE, PACKAGES, module_class
from domain.rules import DRMSpec, Module, ModulePatch, Table


def packaged_modules() -> dict[str, Module]:
    """The modules shipped with Refit (domain/modules/<id>/module.json), each read by its
    package's Module class."""
    return dict(_packaged())


def module_name(module_id: str) -> str:
    """A module as players write it ("PBr CG I", not "PBR CG I"); another's id, upper."""
    found = packaged_modules().get(module_id)
    return found.short_name if found else module_id.upper()


@functools.cache
def _packaged() -> tuple[tuple[str, Module], ...]:
    """Read once a process: the packaged files do not change under it, and a Module is
    frozen (each service, CLI call and job reads them again otherwise: 40 ms)."""
    found = []
    for module_id, package in PACKAGES.items():
        text = resources.files(package).joinpath(DATA_FILE).read_text(encoding="utf-8")
        found.append((module_id, module_class(module_id).model_validate_json(text)))
    return tuple(found)


def read_file(path: Path) -> Module | ModulePatch:
    """Validate one module or patch file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ModuleFileError(f"{path}: {error}") from None
    kind = data.get("format") if isinstance(data, dict) else None
    model: type[Module] | type[ModulePatch] = (
        module_class(str(data.get("id"))) if kind == "refit-module/1" else ModulePatch
    )
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise ModuleFileError(f"{path}: {_first_error(error)}") from None


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def load_modules(module_dir: Path | None) -> dict[str, Module]:
    """Packaged modules with every file of the owner's module dir applied, by file name."""
    modules = packaged_modules()
    if module_dir is None or not module_dir.is_dir():
        return modules
    for path in sorted(module_dir.glob("*.json")):
        apply_file(modules, read_file(path), path)
    return modules


def apply_file(modules: dict[str, Module], item: Module | ModulePatch, path: Path) -> None:
    """Add a whole module, or patch the one it names."""
    if isinstance(item, Module):
        modules[item.id] = item
        return
    if item.module not in modules:
        raise ModuleFileError(f"{path}: no module {item.module!r} to patch")
    try:
        modules[item.module] = item.apply_to(modules[item.module])
    except ValidationError as error:
        raise ModuleFileError(f"{path}: {_first_error(error)}") from None


def install_file(source: Path, module_dir: Path) -> Path:
    """Validate an owner's file together with the dir's others, in load order, then copy it."""
    read_file(source)
    target = module_dir / source.name
    with tempfile.TemporaryDirectory() as trial:
        for path in sorted(module_dir.glob("*.json")) if module_dir.is_dir() else []:
            if path.name != source.name:
                shutil.copyfile(path, Path(trial) / path.name)
        shutil.copyfile(source, Path(trial) / source.name)
        load_modules(Path(trial))
    module_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def describe(module: Module) -> dict[str, Any]:
    """A module as `GET /modules` and `refit module list` show it: CGs, sides, calendar,
    steps, each table with the DRM it lists (what a roll may claim, by id), and the hash
    of its data (what a new campaign pins; an upgrade moves a campaign to it)."""
    return {"id": module.id, "name": module.name, "cgs": sorted(module.cgs),
            "sides": module.sides, "calendar": [d.date for d in module.calendar],
            "steps": [s.model_dump() for s in module.steps],
            "tables": [describe_table(table, module) for table in module.tables],
            "missing_tables": module.missing_tables(),
            "missing_cg_parameters": module.missing_cg_parameters(),
            "data_hash": module_data(module).hash}


def describe_table(table: Table, module: Module) -> dict[str, Any]:
    """A table's id, rule and roll, whether its rolls are sealed to the opponent, each DRM
    it lists, and for a Game End dr (CG4, CG23) when it is due and the circled numbers
    the data gives."""
    described = {"id": table.id, "title": table.title, "rule": table.rule,
                 "roll": table.roll, "secret": module.seals(table),
                 "drm": [_drm(table, spec) for spec in table.drm]}
    if table.game_end is not None:
        described["game_end"] = table.game_end.model_dump()
    return described


def _drm(table: Table, spec: DRMSpec) -> dict[str, Any]:
    return {"id": spec.id, "value": spec.value, "reason": spec.reason,
            "rule": spec.rule or table.rule, "kind": spec.kind, "excludes": spec.excludes,
            "qualifies": spec.qualifies.model_dump(exclude_defaults=True),
            "derive": spec.derive,
            "count": spec.count.model_dump() if spec.count is not None else None,
            "cpp_cost": spec.cpp_cost, "doubt": spec.doubt}


def module_data(module: Module) -> ModuleData:
    """A loaded module as data to pin: its document and the content hash of it."""
    doc = module.model_dump(mode="json")
    return ModuleData(module.id, data_hash(doc), doc, module)


def read_module_data(pin: str, doc: dict[str, Any]) -> ModuleData:
    """Pinned data read back from the store, as this release reads its module (None if it
    cannot: the campaign then refuses commands, saying so, until it is upgraded)."""
    module_id = str(doc.get("id"))
    try:
        module: Module | None = module_class(module_id).model_validate(doc)
    except (ValidationError, KeyError):
        module = None
    return ModuleData(module_id, pin, doc, module)
