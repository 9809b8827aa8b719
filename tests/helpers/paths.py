"""Where things are: the project's root, and the owner files the tests install."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
FIXTURE_CHART = DATA / "fixture_chart.json"  # fictitious PBr RG charts and tables T1, T2
FIXTURE_ABTF = DATA / "fixture_abtf.json"  # ABtF CG I/II parameters, RG charts (EX costs)
FIXTURE_KGP = DATA / "fixture_kgp.json"  # a stand-in for an owner's KGP RePh (fictitious)
FIXTURE_PBR_CGS = DATA / "fixture_pbr_cgs.json"  # PBr CG I-III parameters (fictitious)
