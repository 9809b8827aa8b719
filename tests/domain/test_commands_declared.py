"""Each command is declared once: its model says who sends it, one handler takes it, and
the union and the sides' list are made from the models."""

from __future__ import annotations

import typing

import domain.modules  # noqa: F401  (a module's own commands are handled in its package)
from domain import commands as cmd
from domain.campaign import HANDLERS


def test_every_command_has_one_handler_and_every_handler_a_command() -> None:
    assert set(HANDLERS) == set(cmd.COMMANDS)
    assert HANDLERS["designate_objective"].__module__ == "domain.modules.kgp.bookkeeping"
    assert HANDLERS["credit_cpp"] is HANDLERS["spend_cpp"] is HANDLERS["credit_fpp"]


def test_the_union_holds_every_command_and_parses_each_by_its_type() -> None:
    union = typing.get_args(typing.get_args(cmd.AnyCommand)[0])
    assert set(union) == set(cmd.COMMANDS.values())
    assert isinstance(cmd.parse_command({"type": "advance"}), cmd.Advance)


def test_a_side_sends_its_own_choices_rolls_and_reports_and_the_director_the_rest() -> None:
    sides = {"roll", "advance", "purchase_rg", "purchase_fortification", "select_initiative",
             "designate_objective", "forgo_cpp", "hold_units", "declare_fanaticism",
             "change_pf", "record_rg_area", "retain_units", "resolve_bombardment",
             # reports between the sides, and their answers (domain/campaign/reports.py)
             "record_casualty", "change_control", "confirm_report", "dispute_report",
             "withdraw_report",
             # its share of the dice seed (CONTRACT 'Dice')
             "contribute_seed",
             # its key, and its co-signature of a checkpoint (CONTRACT 'Proofs')
             "register_key", "cosign_checkpoint"}
    assert sides == cmd.SIDE_COMMANDS
    assert cmd.COMMANDS["advance"].by == "side" and cmd.Roll.by == "side"
