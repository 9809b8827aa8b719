"""The `refit` command line, used as a director at the table would."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from api.cli import app
from infra.modules import install_file
from tests.helpers.http import started_and_stopped
from tests.helpers.paths import FIXTURE_ABTF, FIXTURE_PBR_CGS, ROOT

runner = CliRunner()


@pytest.fixture
def db(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test's own database, and its own module dir and service key (one key for both
    databases of a move, as an operator moving campaigns has: re-exports sign alike)."""
    monkeypatch.setenv("REFIT_MODULE_DIR", str(tmp_path / "modules"))
    monkeypatch.setenv("REFIT_SIGNING_KEY_FILE", str(tmp_path / "refit-signing-key"))
    install_file(FIXTURE_ABTF, tmp_path / "modules")  # the ABtF owner data: ELR, SAN known
    return database_url


def refit(*args: str) -> dict | list:
    """Run `refit ... --json` and parse its answer."""
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


REQUIRED = {  # the rolls ABtF's 9.620 waits for before an Initial Scenario (ELR)
    "9.620": [("9.6202", "British"), ("9.6202", "German")],
}


def test_a_campaign_is_created_rolled_on_and_read_back(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "Arnhem",
                    "--db", db)
    assert isinstance(created, dict) and len(created["seed_commitment"]) == 64
    campaign = created["id"]
    for _ in range(5):  # 9.617-9.621 before the Initial Scenario, with their rolls
        step = refit("status", campaign, "--db", db)["step"]  # type: ignore[index]
        for table, side in REQUIRED.get(step, []):
            refit("roll", campaign, "--table", table, "--side", side, "--db", db)
        refit("advance", campaign, "--db", db)
    refit("command", campaign, '{"type": "end_scenario"}', "--db", db)
    for _ in range(9):
        refit("advance", campaign, "--db", db)
    assert refit("status", campaign, "--db", db)["step"] == "9.610"  # type: ignore[index]
    rolled = refit("roll", campaign, "--table", "9.6101", "--side", "British",
                   "--drm", "9.6101-heroic", "--subject", "unit:Lt.Grayburn", "--db", db)
    assert isinstance(rolled, dict)
    data = rolled["events"][0]["data"]
    assert [d["reason"] for d in data["drm"]] == ["British", "Heroic"]
    rolls = refit("rolls", campaign, "--db", db)
    assert isinstance(rolls, list) and rolls[-1]["final"] == data["final"]
    assert [r["table"] for r in rolls] == ["9.6202", "9.6202", "9.6101"]
    roster = refit("roster", campaign, "--db", db)
    assert isinstance(roster, list) and roster[0]["cg_date"] == "17N"
    verified = refit("verify", campaign, "--db", db)
    assert isinstance(verified, dict) and verified["ok"]
    assert verified["events"] == rolled["version"]


def test_human_output_is_a_table(db: str) -> None:
    created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "P",
                    "--db", db)
    assert isinstance(created, dict)
    result = runner.invoke(app, ["roster", created["id"], "--db", db])
    assert result.exit_code == 0
    header = result.stdout.splitlines()[0].split()
    assert header[:4] == ["CG", "Date", "side", "CPP"]
    assert "14AM" in result.stdout and "{" not in result.stdout


def test_a_refused_command_says_why_and_exits_2(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "A",
                    "--db", db)
    assert isinstance(created, dict)
    result = runner.invoke(app, ["roll", created["id"], "--table", "9.6101", "--side",
                                 "British", "--subject", "unit:Lt.Grayburn", "--dice", "4",
                                 "--db", db, "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["field"] == "dice"
    bad_json = runner.invoke(app, ["command", created["id"], "{nope", "--db", db])
    assert bad_json.exit_code == 2 and "not JSON" in bad_json.stderr
    assert refit("verify", created["id"], "--db", db)["events"] == 1  # type: ignore[index]


def test_an_unknown_campaign_is_a_clear_error(db: str) -> None:
    result = runner.invoke(app, ["roster", "not-an-id", "--db", db])
    assert result.exit_code == 2 and "not a campaign id" in result.stderr
    missing = runner.invoke(app, ["roster", "00000000-0000-0000-0000-000000000000", "--db", db])
    assert missing.exit_code == 2 and "no campaign" in missing.stderr


def test_an_owner_loads_an_rg_chart_and_an_upgrade_makes_purchases_possible(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFIT_MODULE_DIR", str(tmp_path / "no-owner-data-yet"))
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "A",
                    "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    before = runner.invoke(app, ["purchase", campaign, "--side", "British", "--rg", "G9",
                                 "--db", db])
    assert before.exit_code == 2 and "RG chart (9.617) is not supplied" in before.stderr
    refit("module", "load", str(FIXTURE_ABTF), "--db", db)
    still = runner.invoke(app, ["purchase", campaign, "--side", "British", "--rg", "G9",
                                "--db", db])  # the campaign plays the data it was made with
    assert still.exit_code == 2 and "RG chart (9.617) is not supplied" in still.stderr
    upgraded = refit("command", campaign, '{"type": "upgrade_module"}', "--db", db)
    assert isinstance(upgraded, dict)
    changed = upgraded["events"][0]["data"]["changes"]
    assert {"at": "rg_charts.British", "change": "added"} in changed
    refit("command", campaign, '{"type": "credit_cpp", "side": "British", "amount": 17, '
          '"reason": "Initial Scenario CPP"}', "--db", db)
    bought = refit("purchase", campaign, "--side", "British", "--rg", "G9", "--db", db)
    assert isinstance(bought, dict) and bought["events"][0]["data"]["cost"] == 4
    record = refit("purchases", campaign, "--db", db)
    assert isinstance(record, list) and (record[0]["p"], record[0]["r"]) == (1, 1)


def test_campaign_list_shows_every_campaign(db: str) -> None:
    for name in ("One", "Two"):
        refit("campaign", "new", "--module", "kgp", "--cg", "I", "--name", name, "--db", db)
    listed = refit("campaign", "list", "--db", db)
    assert isinstance(listed, list) and sorted(c["name"] for c in listed) == ["One", "Two"]


def test_modules_are_listed_with_sides_and_calendars() -> None:
    listed = refit("module", "list")
    assert isinstance(listed, list)
    by_id = {m["id"]: m for m in listed}
    assert by_id["abtf"]["sides"] == ["British", "German"]
    assert by_id["pbr"]["calendar"][:3] == ["14AM", "14PM", "14N"]
    assert [t["id"] for t in by_id["kgp"]["tables"]] == ["CG23"]
    (night,) = by_id["kgp"]["tables"][0]["drm"]
    assert (night["id"], night["value"], night["kind"], night["rule"]) == (
        "CG23-night", 1, "automatic", "CG23")


def test_an_unusable_database_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    result = runner.invoke(app, ["campaign", "list", "--db",
                                 f"sqlite:///{tmp_path}/no/such/dir/refit.db"])
    assert result.exit_code == 2
    assert "error: cannot use the database" in result.stderr


def test_control_and_san_changes_are_listed(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "A",
                    "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    refit("command", campaign, '{"type": "change_control", "location": "Block C", '
          '"kind": "Block", "side": "German", "rule": "9.605"}', "--db", db)
    refit("command", campaign, '{"type": "change_san", "side": "British", "value": 4, '
          '"cause": "Initial Scenario"}', "--db", db)
    (block,) = refit("control", campaign, "--db", db)  # type: ignore[misc]
    assert (block["location"], block["side"], block["previous"]) == ("Block C", "German", None)
    (change,) = refit("san", campaign, "--db", db)  # type: ignore[misc]
    assert (change["side"], change["after"]) == ("British", 4)


def test_a_roll_for_an_rg_lands_on_its_record_and_status_says_what_is_due(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "RG",
                    "--dice", "entered", "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    refit("command", campaign, '{"type": "credit_cpp", "side": "German", "amount": 5, '
          '"reason": "Initial Scenario CPP"}', "--db", db)
    refit("purchase", campaign, "--side", "German", "--rg", "I1", "--kg", "K", "--db", db)
    refit("advance", campaign, "--db", db)  # to 9.618
    waiting = runner.invoke(app, ["status", campaign, "--db", db])
    assert "9.618 waits for: 9.6181 German for rg:1" in waiting.stdout
    refit("roll", campaign, "--table", "9.6181", "--side", "German", "--dice", "6",
          "--dice", "5", "--subject", "rg:1", "--db", db)  # 11: Depleted
    record = refit("purchases", campaign, "--db", db)
    assert isinstance(record, list) and (record[0]["strength"], record[0]["units"]) == (
        "D", "3x 6-5-8")


def test_lvp_and_objectives_are_read_from_the_command_line(db: str) -> None:
    created = refit("campaign", "new", "--module", "kgp", "--cg", "I", "--name", "K",
                    "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    refit("command", campaign, '{"type": "change_control", "location": "StAA15", '
          '"side": "German", "lvp": 20, "map_group": "St"}', "--db", db)
    refit("command", campaign, '{"type": "end_scenario"}', "--db", db)
    totals = refit("lvp", campaign, "--db", db)
    assert isinstance(totals, list) and totals[0]["cg_total"] == {"German": 20, "US": 0}
    shown = runner.invoke(app, ["lvp", campaign, "--db", db])
    assert shown.exit_code == 0 and "St 20" in shown.stdout
    assert refit("objectives", campaign, "--db", db) == []


def test_campaign_new_prints_each_roles_token_once(db: str) -> None:
    created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "T",
                    "--db", db)
    assert isinstance(created, dict)
    tokens = created["tokens"]
    assert set(tokens["sides"]) == {"Axis", "British"} and tokens["director"]
    assert tokens["director"] not in json.dumps(refit("status", created["id"], "--db", db))


def test_serve_keeps_a_made_admin_token_beside_the_database(tmp_path: Path) -> None:
    from api.cli.service import admin_token_file
    from infra.settings import Settings

    conf = Settings(database_url=f"sqlite:///{tmp_path / 'refit.db'}")
    token, where, made = admin_token_file(conf)
    assert made and where == tmp_path / "refit-admin-token" and len(token) > 30
    assert admin_token_file(conf) == (token, where, False)
    assert oct(where.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(("setting", "logged"), [(None, False), ("true", True)])
def test_serve_logs_each_request_only_when_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str | None,
        logged: bool) -> None:
    import uvicorn

    started: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", started_and_stopped(started))
    if setting is not None:
        monkeypatch.setenv("REFIT_ACCESS_LOG", setting)
    result = runner.invoke(app, ["serve", "--port", "8123",
                                 "--db", f"sqlite:///{tmp_path / 'refit.db'}"])
    assert result.exit_code == 0, result.output
    assert started["port"] == 8123 and started["access_log"] is logged


def exported(db: str, campaign: str, *options: str) -> list[str]:
    """`refit export` lines."""
    result = runner.invoke(app, ["export", campaign, *options, "--db", db])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_an_export_verifies_from_its_file_and_a_sides_export_keeps_secrets(
        db: str, tmp_path: Path) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "E",
                    "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    refit("command", campaign, '{"type": "credit_cpp", "side": "German", "amount": 9, '
          '"reason": "Initial Scenario CPP"}', "--db", db)
    for viewer in ([], ["--as", "British"]):
        lines = exported(db, campaign, *viewer)
        path = tmp_path / f"export{len(viewer)}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        checked = refit("verify", str(path))
        assert isinstance(checked, dict) and checked["ok"] and checked["events"] == 2
        credit = json.loads(lines[2])
        assert ("amount" in credit["data"]) is (not viewer)


def an_elr_change_exported(db: str) -> list[str]:
    """The export lines of a new PBr campaign whose version 2 sets the Axis ELR to 3."""
    created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "T",
                    "--db", db)
    assert isinstance(created, dict)
    refit("command", created["id"], '{"type": "change_elr", "side": "Axis", "value": 3, '
          '"cause": "OB"}', "--db", db)
    return exported(db, created["id"])


def test_a_tampered_or_cut_export_is_named_and_exits_1(db: str, tmp_path: Path) -> None:
    lines = an_elr_change_exported(db)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines).replace('"after":3', '"after":5') + "\n")
    bad = runner.invoke(app, ["verify", str(forged), "--json"])
    assert bad.exit_code == 1 and json.loads(bad.stdout)["first_bad_version"] == 2
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")
    short = runner.invoke(app, ["verify", str(cut), "--json"])
    assert short.exit_code == 1 and "cut short" in json.loads(short.stdout)["problem"]


def test_a_copied_event_and_a_missing_file_are_named_as_such(db: str, tmp_path: Path) -> None:
    lines = an_elr_change_exported(db)
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join([*lines[:2], lines[1], *lines[2:]]) + "\n")
    copied = runner.invoke(app, ["verify", str(twice), "--json"])
    assert copied.exit_code == 1
    assert json.loads(copied.stdout)["problem"] == "version 1 appears twice (or out of order)"
    missing = runner.invoke(app, ["verify", str(tmp_path / "gone.jsonl")])
    assert missing.exit_code == 2 and "gone.jsonl: no such file" in missing.output


@pytest.mark.parametrize(("edit", "why"), [
    (lambda event: event.pop("type"), "it has no 'type'"),
    (lambda event: event.update(data=5), "its 'data' is not a JSON object"),
    (lambda event: event.update(version="2"), "its 'version' is not a whole number")])
def test_an_export_line_that_is_no_event_record_is_named_by_verify_and_import(
        db: str, other_database_url: str, tmp_path: Path, edit: Any, why: str) -> None:
    lines = an_elr_change_exported(db)
    event = json.loads(lines[2])
    edit(event)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:2], json.dumps(event), *lines[3:]]) + "\n")
    bad = runner.invoke(app, ["verify", str(broken), "--json"])
    assert bad.exit_code == 1, bad.output  # said, not a traceback
    assert json.loads(bad.stdout)["first_bad_version"] == 2
    assert why in json.loads(bad.stdout)["problem"]
    refused = runner.invoke(app, ["import", str(broken), "--db", other_database_url])
    assert refused.exit_code != 0 and why in refused.output and "Traceback" not in \
        refused.output


def test_several_campaigns_move_in_one_export_and_one_import(
        db: str, other_database_url: str, tmp_path: Path) -> None:
    ids = []
    for name in ("One", "Two"):
        created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", name,
                        "--db", db)
        assert isinstance(created, dict)
        ids.append(created["id"])
        refit("command", created["id"], '{"type": "change_elr", "side": "Axis", "value": 3, '
              '"cause": "OB"}', "--db", db)
    assert runner.invoke(app, ["export", *ids, "--db", db]).exit_code == 2  # no --to
    out = tmp_path / "moved"
    out.mkdir()
    done = runner.invoke(app, ["export", *ids, "--with-seed", "--to", str(out), "--db", db])
    assert done.exit_code == 0 and done.stdout == ""
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{i}.jsonl" for i in ids)
    files = [out / f"{i}.jsonl" for i in ids]
    for ident, path in zip(ids, files, strict=True):  # each as its own export writes it
        assert path.read_text().splitlines() == exported(db, ident, "--with-seed")
    imported = refit("import", *map(str, files), "--db", other_database_url)
    assert isinstance(imported, list)
    assert [(i["id"], i["events"], i["seed"]) for i in imported] == [(i, 2, True) for i in ids]
    for ident, path in zip(ids, files, strict=True):
        assert exported(other_database_url, ident, "--with-seed") == \
            path.read_text().splitlines()
    again = runner.invoke(app, ["import", str(files[1]), str(files[0]), "--json",
                                "--db", other_database_url])
    assert again.exit_code == 2
    error = json.loads(again.stdout)["error"]
    assert error["code"] == "conflict" and error["message"].startswith(f"{files[1]}: ")


def test_among_several_imports_a_bad_file_is_named_and_those_before_it_stay(
        db: str, tmp_path: Path) -> None:
    created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "G",
                    "--db", db)
    assert isinstance(created, dict)
    source = tmp_path / "good.jsonl"
    source.write_text("\n".join(exported(db, created["id"], "--with-seed")) + "\n")
    forged = tmp_path / "forged.jsonl"
    forged.write_text(source.read_text().replace('"name":"G"', '"name":"H"'))
    target = f"sqlite:///{tmp_path / 'target.db'}"
    result = runner.invoke(app, ["import", str(source), str(forged), "--db", target])
    assert result.exit_code == 2
    assert result.stdout.startswith(f"imported {created['id']}: 1 events")
    assert f"refused: {forged}: " in result.stderr
    listed = refit("campaign", "list", "--db", target)
    assert isinstance(listed, list) and [c["id"] for c in listed] == [created["id"]]


def test_campaigns_move_in_several_processes_with_jobs(
        db: str, other_database_url: str, tmp_path: Path) -> None:
    ids = []
    for name in ("One", "Two", "Three"):
        created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", name,
                        "--db", db)
        assert isinstance(created, dict)
        ids.append(created["id"])
    out = tmp_path / "moved"
    out.mkdir()
    done = runner.invoke(app, ["export", *ids, "--with-seed", "--to", str(out), "--jobs", "2",
                               "--db", db])
    assert done.exit_code == 0
    files = [out / f"{i}.jsonl" for i in ids]
    for ident, path in zip(ids, files, strict=True):
        assert path.read_text().splitlines() == exported(db, ident, "--with-seed")
    forged = tmp_path / "forged.jsonl"
    forged.write_text(files[0].read_text().replace('"name":"One"', '"name":"Uno"'))
    refused = runner.invoke(app, ["import", str(files[1]), str(forged), str(files[2]),
                                  "--jobs", "2", "--json", "--db", other_database_url])
    assert refused.exit_code == 2
    assert json.loads(refused.stdout)["error"]["message"].startswith(f"{forged}: ")
    listed = refit("campaign", "list", "--db", other_database_url)
    assert isinstance(listed, list)
    assert sorted(c["id"] for c in listed) == sorted(ids[1:])  # each share's others stay
    imported = refit("import", str(files[0]), "--jobs", "2", "--db", other_database_url)
    assert isinstance(imported, dict) and imported["id"] == ids[0]
    for ident, path in zip(ids, files, strict=True):
        assert exported(other_database_url, ident, "--with-seed") == \
            path.read_text().splitlines()


def _commands(group: Any) -> list[tuple[str, Any]]:
    """Every `refit` subcommand (and sub-subcommand), by name."""
    found = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            found += [(f"{name} {sub}", each) for sub, each in _commands(command)]
        else:
            found.append((name, command))
    return found


OFFLINE = {"keygen", "cosign"}  # a player's own tools: they read no database


def test_every_subcommand_takes_db_and_json() -> None:
    import typer.main
    commands = list(_commands(typer.main.get_command(app)))
    missing = [name for name, command in commands if name not in OFFLINE
               and not {"--db", "--json"} <= {opt for p in command.params for opt in p.opts}]
    assert missing == []
    assert all("--json" in {opt for p in command.params for opt in p.opts}
               for name, command in commands if name in OFFLINE)


def readme_commands() -> set[str]:
    """The subcommands README's "Using it" lists: `refit NAME`, or `refit GROUP NAME`."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Using it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    names = set()
    for line in block.splitlines():
        words = [*line.split()[1:3], "", ""]  # after `refit`; a lower-case word next: a group's
        names.add(" ".join(words[:2]) if re.fullmatch(r"[a-z]+", words[1]) else words[0])
    return names


def test_the_command_tree_is_what_the_readme_lists() -> None:
    import typer.main
    tree = {name for name, _ in _commands(typer.main.get_command(app))}
    assert tree == readme_commands()


def test_the_forms_and_report_with_json_are_json_and_refusals_too(db: str) -> None:
    campaign = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "J",
                     "--db", db)["id"]  # type: ignore[call-overload]
    form = refit("forms", campaign, "--form", "roster", "--db", db)
    report = refit("report", campaign, "--db", db)
    assert isinstance(form, dict) and form["form"] == "roster" and "CG Date" in form["text"]
    assert isinstance(report, dict) and report["format"] == "text" and report["text"]
    unknown = runner.invoke(app, ["export", "00000000-0000-0000-0000-000000000000", "--db",
                                  db, "--json"])
    assert unknown.exit_code == 2 and json.loads(unknown.stdout)["error"]["code"] == "not_found"


def test_a_director_corrects_by_ruling_and_dry_runs_an_undo(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "Rulings",
                    "--db", db)
    campaign = str(created["id"])  # type: ignore[index]
    start = refit("status", campaign, "--db", db)
    ruled = refit("ruling", campaign, "--verdict", "corrected", "--reason", "CPP misread",
                  "--correction", '{"kind": "adjust", "side": "German", "pool": "cpp", '
                  '"amount": 2, "reason": "the chart was misread"}', "--db", db)
    assert [e["type"] for e in ruled["events"]] == ["RulingRecorded", "PointsCorrected"]  # type: ignore[index]
    after = refit("status", campaign, "--db", db)
    assert after["sides"]["German"]["cpp"] == start["sides"]["German"]["cpp"] + 2  # type: ignore[index]
    plan = refit("undo", campaign, "--to-version", str(start["version"]), "--reason", "x",  # type: ignore[index]
                 "--dry-run", "--db", db)
    assert plan["event_types"] == {"RulingRecorded": 1, "PointsCorrected": 1}  # type: ignore[index]
    assert refit("status", campaign, "--db", db)["version"] == after["version"]  # type: ignore[index]
    bad = runner.invoke(app, ["ruling", campaign, "--verdict", "corrected", "--reason", "x",
                              "--correction", '{"kind": "adjust", "side": "German", '
                              '"pool": "elr", "amount": 9, "reason": "x"}', "--db", db,
                              "--json"])
    assert bad.exit_code == 2 and "corrections[0].amount" in bad.stdout


def test_refit_guide_prints_a_sides_own_part_or_every_sides_for_the_director(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "Guide",
                    "--dice", "entered", "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    refit("command", campaign, '{"type": "credit_cpp", "side": "German", "amount": 5, '
          '"reason": "Initial Scenario CPP"}', "--db", db)
    refit("purchase", campaign, "--side", "German", "--rg", "I1", "--kg", "K", "--db", db)
    refit("advance", campaign, "--db", db)  # to 9.618
    german = refit("guide", campaign, "--side", "German", "--db", db)
    assert isinstance(german, dict) and list(german["sides"]) == ["German"]
    assert [(w["table"], w["subject"]) for w in german["sides"]["German"]["due"]] == [
        ("9.6181", "rg:1"), ("9.6182-psk", "rg:1")]
    british = refit("guide", campaign, "--side", "British", "--db", db)
    assert isinstance(british, dict) and "rg:1" not in json.dumps(british)
    director = refit("guide", campaign, "--db", db)
    assert isinstance(director, dict) and set(director["sides"]) == {"British", "German"}
    text = runner.invoke(app, ["guide", campaign, "--side", "German", "--db", db])
    assert "due: 9.6181 RG Strength Table DR for rg:1; secret" in text.stdout
    nobody = runner.invoke(app, ["guide", campaign, "--side", "Axis", "--db", db])
    assert nobody.exit_code == 2 and "not a side of this campaign" in nobody.stderr
    refit("roll", campaign, "--table", "9.6181", "--side", "German", "--dice", "1", "--dice",
          "1", "--subject", "rg:1", "--by", "German", "--db", db)
    refit("roll", campaign, "--table", "9.6182-psk", "--side", "German", "--dice", "4",
          "--subject", "rg:1", "--by", "German", "--db", db)
    # the fixture's chart indicates I1 for a Leader Table roll (9.6183): due before leaving
    refit("roll", campaign, "--table", "9.6183-german", "--side", "German", "--dice", "3",
          "--dice", "3", "--subject", "rg:1/leader:1", "--by", "German", "--db", db)
    marked = refit("advance", campaign, "--side", "German", "--by", "German", "--db", db)
    assert isinstance(marked, dict) and marked["events"][0]["type"] == "StepDoneBySide"


def test_campaign_new_cg_ii_starts_where_the_owners_cg_parameters_say(db: str) -> None:
    refit("module", "load", str(FIXTURE_PBR_CGS), "--db", db)  # PBr 3.52 (fictitious)
    created = refit("campaign", "new", "--module", "pbr", "--cg", "II", "--name", "Primosole",
                    "--db", db)
    assert isinstance(created, dict)
    status = refit("status", created["id"], "--db", db)
    assert isinstance(status, dict) and status["cg_date"] == "15AM"
    assert {side: (s["elr"], s["san"], s["cpp"]) for side, s in status["sides"].items()} == {
        "Axis": (4, 2, 30), "British": (3, 4, 45)}
    record = refit("purchases", created["id"], "--db", db)
    assert isinstance(record, list) and [(r["side"], r["rg"]) for r in record] == [
        ("Axis", "I1"), ("British", "V1")]


def test_a_side_reports_by_the_command_line_and_the_guide_and_status_print_it(
        db: str) -> None:
    created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "Reports",
                    "--db", db)
    campaign = str(created["id"])  # type: ignore[index]
    for _ in range(8):  # the Initial Scenario: 3.617-3.623, then the scenario is in play
        if refit("status", campaign, "--db", db)["phase"] == "scenario":  # type: ignore[index]
            break
        refit("advance", campaign, "--db", db)
    reported = refit("command", campaign, '{"type": "record_casualty", "side": "Axis", '
                     '"unit": "4-6-8", "cvp": 2}', "--by", "Axis", "--db", db)
    assert reported["events"][0]["type"] == "CasualtyReported"  # type: ignore[index]
    guide_text = runner.invoke(app, ["guide", campaign, "--side", "British", "--db", db])
    assert "due: answer report 1 (the Axis lost 4-6-8 (2 CVP)): confirm_report or " \
        "dispute_report" in guide_text.stdout
    status_text = runner.invoke(app, ["status", campaign, "--db", db])
    assert "report 1 (the Axis lost 4-6-8 (2 CVP), pending) awaits the British" in \
        status_text.stdout
    refit("command", campaign, '{"type": "confirm_report", "report": 1, "side": "British"}',
          "--by", "British", "--db", db)
    assert refit("cvp", campaign, "--db", db)["totals"] == {"Axis": 2, "British": 0}  # type: ignore[index]


def test_both_sides_cosign_at_the_command_line_and_an_import_checks_what_they_hold(
        db: str, other_database_url: str, tmp_path: Path) -> None:
    created = refit("campaign", "new", "--module", "pbr", "--cg", "I", "--name", "Signed",
                    "--db", db)
    assert isinstance(created, dict)
    campaign = created["id"]
    for side in ("Axis", "British"):
        key = refit("keygen", "--name", f"{side}-player", "--out", str(tmp_path / side))
        assert isinstance(key, dict)
        refit("command", campaign, json.dumps({"type": "register_key", "side": side,
                                               "key": key["key"]}), "--by", side, "--db", db)
    held = tmp_path / "checkpoint.txt"
    held.write_text(runner.invoke(app, ["checkpoint", campaign, "--db", db]).stdout)
    for side in ("Axis", "British"):
        body = runner.invoke(app, ["cosign", str(held), "--key-file", str(tmp_path / side),
                                   "--side", side]).stdout
        refit("command", campaign, body, "--by", side, "--db", db)
    said = runner.invoke(app, ["verify", campaign, "--db", db])
    assert said.exit_code == 0
    assert re.search(r"co-signed at size 3 by Axis, British \(every side\)", said.stdout)
    source = tmp_path / "signed.jsonl"
    source.write_text("\n".join(exported(db, campaign, "--with-seed")) + "\n")
    assert refit("verify", str(source))["cosigned"][0]["all_sides"]  # type: ignore[index]
    cut = tmp_path / "cut.jsonl"  # the tail truncated before the co-signed size
    lines = source.read_text().splitlines()
    tail = json.loads(lines[-1]) | {"events": 2, "head_hash": json.loads(lines[3])["prev_hash"]}
    cut.write_text("\n".join([*lines[:3], json.dumps(tail)]) + "\n")
    refused = runner.invoke(app, ["import", str(cut), "--checkpoint", str(held),
                                  "--db", other_database_url])
    assert refused.exit_code == 2 and "the checkpoint you hold is of size 3" in refused.stderr
    imported = refit("import", str(source), "--checkpoint", str(held),
                     "--db", other_database_url)
    assert isinstance(imported, dict) and imported["events"] == 5


def test_a_side_disputes_a_roll_and_the_status_says_it_awaits_a_ruling(db: str) -> None:
    created = refit("campaign", "new", "--module", "abtf", "--cg", "I", "--name", "A",
                    "--db", db)
    campaign = created["id"]  # type: ignore[call-overload]
    while refit("status", campaign, "--db", db)["step"] != "9.620":  # type: ignore[index]
        refit("advance", campaign, "--db", db)
    rolled = refit("roll", campaign, "--table", "9.6202", "--side", "British", "--db", db)
    [version] = [e["version"] for e in rolled["events"]  # type: ignore[call-overload]
                 if e["type"] == "DiceRolled"]
    refit("dispute", campaign, "--version", str(version), "--by", "German",
          "--reason", "the British ELR loss DRM is wrong", "--db", db)
    shown = runner.invoke(app, ["status", campaign, "--db", db])
    assert f"roll {version} (9.6202, 17N) disputed by the German, awaits the director's " \
           "ruling: the British ELR loss DRM is wrong" in shown.stdout
    again = runner.invoke(app, ["dispute", campaign, "--version", str(version), "--by",
                                "British", "--reason", "mine too", "--db", db])
    assert again.exit_code != 0 and "disputed already" in again.output
    director = runner.invoke(app, ["dispute", campaign, "--version", str(version), "--by",
                                   "director", "--reason", "no", "--db", db])
    assert director.exit_code != 0 and "the director rules on it" in director.output
