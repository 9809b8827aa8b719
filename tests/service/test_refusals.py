"""Bad input gets a clear error naming the field or the rule, and appends nothing."""

from __future__ import annotations

from uuid import UUID

import pytest
from pydantic import ValidationError

from domain import commands as cmd
from domain.errors import InvalidCommand, MissingTable, RefitError, RuleViolation
from infra.application import Refit
from tests.helpers.refusals import refused
from tests.helpers.story import advance_to, do, load_abtf_owner_data, to_reph_step


@pytest.fixture
def server_campaign(refit: Refit) -> UUID:
    """An ABtF campaign rolling server dice, its SAN and ELR from the owner's CG I data."""
    load_abtf_owner_data(refit)
    return refit.commands.create_campaign("abtf", "I", "Arnhem", "server").id


@pytest.fixture
def entered_campaign(refit: Refit) -> UUID:
    """An ABtF campaign whose dice are typed in."""
    return refit.commands.create_campaign("abtf", "I", "Arnhem at the table", "entered").id


def test_an_unknown_command_type_names_the_type(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "teleport"})
    assert isinstance(error, ValidationError) and "teleport" in str(error)


def test_a_missing_field_is_named(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "roll", "side": "British"})
    assert isinstance(error, ValidationError)
    assert error.errors()[0]["loc"] == ("roll", "table")


def test_an_unknown_field_is_refused_not_ignored(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "advance", "to": "9.620"})
    assert isinstance(error, ValidationError) and "to" in str(error.errors()[0]["loc"])


@pytest.mark.parametrize("die", [0, 7, -1])
def test_a_die_outside_1_to_6_is_refused(refit: Refit, entered_campaign: UUID, die: int) -> None:
    error = refused(refit, entered_campaign,
                    {"type": "roll", "table": "9.6101", "side": "British", "dice": [die]})
    assert isinstance(error, ValidationError)
    assert error.errors()[0]["loc"][:2] == ("roll", "dice")


def test_dice_given_in_server_mode_are_refused(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign,
                    {"type": "roll", "table": "9.6101", "side": "British", "dice": [3]})
    assert isinstance(error, InvalidCommand) and error.field == "dice"


def test_entered_mode_needs_the_dice(refit: Refit, entered_campaign: UUID) -> None:
    error = refused(refit, entered_campaign,
                    {"type": "roll", "table": "9.6101", "side": "British"})
    assert isinstance(error, InvalidCommand) and error.field == "dice"


def test_a_table_the_module_lacks_is_named(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign,
                    {"type": "roll", "table": "3.610", "side": "British"})
    assert isinstance(error, InvalidCommand) and "no table '3.610'" in error.message


def test_a_side_the_campaign_lacks_is_named(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign,
                    {"type": "roll", "table": "9.6101", "side": "Axis"})
    assert isinstance(error, InvalidCommand) and error.field == "side"


def test_a_drm_is_claimed_by_id_not_by_value_and_reason(refit: Refit,
                                                         server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {
        "type": "roll", "table": "9.6101", "side": "German",
        "drm": [{"value": -2, "reason": "Heroic"}]})
    assert isinstance(error, ValidationError)


def test_a_drm_the_ledger_derives_may_not_be_supplied_again(refit: Refit,
                                                            server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {
        "type": "roll", "table": "9.6101", "side": "British",
        "drm": [{"id": "9.6101-british"}]})
    assert isinstance(error, InvalidCommand) and "the ledger derives it" in error.message
    assert (error.rule, error.field) == ("9.6101", "drm[0]")


def test_a_purchase_without_an_rg_chart_names_the_missing_chart(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("abtf", "I", "No chart", "server").id
    error = refused(refit, campaign, {"type": "purchase_rg", "side": "German", "rg": "I1"})
    assert isinstance(error, MissingTable) and error.rule == "9.617"


def test_a_module_without_reph_steps_refuses_to_advance_naming_them(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("kgp", "I", "Peiper", "server").id
    do(refit, campaign, {"type": "end_scenario"})
    error = refused(refit, campaign, {"type": "advance"})
    assert isinstance(error, MissingTable) and "KGP RePh steps" in error.message
    assert error.rule == "8.6"


def test_a_spend_beyond_the_fpp_held_is_refused(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {
        "type": "purchase_fortification", "side": "German", "amount": 2,
        "reason": "Foxhole (2-squad)",
        "rule": "9.619"})
    assert isinstance(error, RefitError) and error.rule == "9.619"


def test_casualties_before_any_scenario_are_refused(refit: Refit, server_campaign: UUID) -> None:
    refused(refit, server_campaign,
            {"type": "record_casualty", "side": "British", "unit": "6-5-8", "cvp": 2})


def test_a_second_chit_for_one_cg_date_is_refused(refit: Refit, server_campaign: UUID) -> None:
    to_reph_step(refit, server_campaign, "9.621")
    do(refit, server_campaign, {"type": "select_initiative", "side": "German", "chit": "attack"})
    refused(refit, server_campaign,
            {"type": "select_initiative", "side": "German", "chit": "idle"})


def test_an_unknown_module_or_cg_is_named(refit: Refit) -> None:
    with pytest.raises(InvalidCommand) as error:
        refit.commands.create_campaign("asl", "I", "Nowhere")
    assert error.value.field == "module"
    with pytest.raises(InvalidCommand) as error:
        refit.commands.create_campaign("abtf", "IV", "Nowhere")
    assert error.value.field == "cg"


def test_commands_parse_from_json_bodies() -> None:
    parsed = cmd.parse_command({"type": "roll", "table": "9.6101", "side": "British",
                                "drm": [{"id": "9.6101-heroic"}]})
    assert isinstance(parsed, cmd.Roll) and parsed.drm[0].id == "9.6101-heroic"


def test_control_characters_in_text_are_refused(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "change_control",
                                             "location": "Bridge\u0000X", "side": "German"})
    assert isinstance(error, ValidationError) and error.errors()[0]["loc"][-1] == "location"


def test_a_boolean_is_not_a_drm_count(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "roll", "table": "9.6101", "side": "German",
                                             "drm": [{"id": "9.6101-heroic", "count": True}]})
    assert isinstance(error, ValidationError)


def test_an_unknown_type_names_the_type_field() -> None:
    from api.errors import error_body

    with pytest.raises(ValidationError) as error:
        cmd.parse_command({"type": "teleport"})
    assert error_body(error.value)["error"]["field"] == "type"


@pytest.mark.parametrize("name", ["", "x" * 201, "Arnhem\n"])
def test_a_campaign_name_must_be_1_to_200_printable_characters(refit: Refit, name: str) -> None:
    with pytest.raises(InvalidCommand) as error:
        refit.commands.create_campaign("abtf", "I", name)
    assert error.value.field == "name"


# What shows nothing: a name made of it looks blank, one hiding it looks like another's.
@pytest.mark.parametrize("name", ["\u115f", "\u180e", "a\u3164b", "Ran\u00adville",
                                  "a\u200db", "a\U000e0001b", "\ufeffArnhem"])
def test_a_campaign_name_with_a_character_that_shows_nothing_is_refused(
        refit: Refit, name: str) -> None:
    with pytest.raises(InvalidCommand) as error:
        refit.commands.create_campaign("abtf", "I", name)
    assert error.value.field == "name" and "invisible characters (U+" in error.value.message


def test_a_table_is_rolled_only_in_its_own_step(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "roll", "table": "9.6101", "side": "German"})
    assert isinstance(error, RefitError) and error.rule == "9.610"
    assert error.message == ("table 9.6101 (Wounded Leader Table) belongs to step 9.610 Wounded "
                             "Leaders and Walking Wounded MMC; the RePh is at step 9.617")


def test_fortifications_are_bought_only_in_their_step(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Forts", "server").id
    do(refit, campaign, {"type": "credit_fpp", "side": "Axis", "amount": 3, "reason": "RG"})
    error = refused(refit, campaign, {"type": "purchase_fortification", "side": "Axis",
                                      "amount": 1, "reason": "Foxhole (1-squad)"})
    assert isinstance(error, RefitError) and error.rule == "3.619"
    advance_to(refit, campaign, "3.619")
    do(refit, campaign, {"type": "purchase_fortification", "side": "Axis", "amount": 1,
                         "reason": "Foxhole (1-squad)", "rule": "3.619"})


def test_c1_control_characters_are_refused_too(refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "change_control",
                                             "location": "Bridge\u0085", "side": "German"})
    assert isinstance(error, ValidationError)


def test_control_of_what_the_module_has_no_control_of_names_the_kind_and_rule(
        refit: Refit, server_campaign: UUID) -> None:
    error = refused(refit, server_campaign, {"type": "change_control", "location": "Bridge",
                                             "kind": "Village", "side": "German"})
    assert isinstance(error, InvalidCommand)
    assert (error.field, error.rule) == ("kind", "9.605")
    assert "Strategic Location, Location, Block" in str(error)


def test_a_block_changes_hands_in_abtf_but_pbr_has_no_blocks(
        refit: Refit, server_campaign: UUID) -> None:
    do(refit, server_campaign, {"type": "change_control", "location": "Block 7",
                                "kind": "Block", "side": "German", "rule": "9.605"})
    pbr = refit.commands.create_campaign("pbr", "I", "Pegasus", "server").id
    error = refused(refit, pbr, {"type": "change_control", "location": "Block 7",
                                 "kind": "Block", "side": "Axis"})
    assert isinstance(error, InvalidCommand) and (error.field, error.rule) == ("kind", "3.605")


def test_a_side_reports_a_blocks_control_only_in_9_605_the_director_at_any_time(
        refit: Refit, server_campaign: UUID) -> None:
    """ABtF 9.605: Block Control is determined (and can change) only as a result of this
    step [EXC: Block Control Forfeiture; 9.6051]."""
    block = {"type": "change_control", "location": "Block 7", "kind": "Block",
             "side": "German"}
    to_reph_step(refit, server_campaign, "9.604")
    error = refused(refit, server_campaign, block, actor="German")
    assert isinstance(error, RuleViolation) and (error.field, error.rule) == ("kind", "9.605")
    assert "only in RePh step 9.605" in str(error)
    do(refit, server_campaign, block | {"location": "Block 8"})  # the director: 9.6051
    advance_to(refit, server_campaign, "9.605")
    do(refit, server_campaign, block, actor="German")  # a report, for the British to confirm
    [report] = refit.store.campaign(server_campaign).reports.open.values()
    assert (report["kind"], report["side"]) == ("control", "German")
