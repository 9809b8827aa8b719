"""`refit` for a director's audit: undo, re-roll, rulings, the roll audit, diffs, the paper
forms and the history report."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from api.cli.core import (
    AsOf,
    By,
    Db,
    Id,
    Json,
    Viewer,
    answer,
    appended,
    campaign_key,
    cell,
    emit,
    guarded,
    ledger,
    print_table,
    query,
    viewer_of,
)
from domain.errors import InvalidCommand

Reason = Annotated[str, typer.Option(help="Why (recorded in the event).")]

app = typer.Typer()


@app.command()
def undo(campaign: Id, reason: Reason,
         to_version: Annotated[int | None, typer.Option(help="Undo every event after it.")]
         = None,
         to_step: Annotated[str | None, typer.Option(
             help="Undo every event after that step, CGDATE/STEP (e.g. 19PM/9.616): back to "
                  "the campaign as it stood once the step was complete, as --as-of reads "
                  "it (to redo a step, name the step before it).")] = None,
         dry_run: Annotated[bool, typer.Option(
             "--dry-run", help="List what the undo would remove; append nothing.")] = False,
         by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """Undo by replay: the undone events stay in the log; a redo rolls the same dice."""
    if not dry_run:
        answer(as_json, appended(db, as_json, campaign, lambda refit: refit.audit.undo(
            campaign_key(campaign), reason, by, to_version, to_step)))
        return
    plan = query(db, as_json, lambda refit: refit.audit.undo_plan(
        campaign_key(campaign), reason, to_version, to_step))

    def human() -> None:
        typer.echo(f"would undo {plan.events} event(s) after version {plan.to_version} "
                   f"(the head is {plan.head}); nothing appended")
        for kind, count in sorted(plan.event_types.items()):
            typer.echo(f"  {count} x {kind}")
        for made in plan.rolls:
            typer.echo(f"  roll v{made['version']} {made['side']} {made.get('rule', '(secret)')}"
                       f" {made.get('subject', '')} {made.get('key', '')}".rstrip())
    emit(as_json, plan, human)


@app.command()
def reroll(campaign: Id, key: Annotated[str, typer.Option(help="The roll's key.")],
           reason: Reason, by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """A director's re-roll: the roll is undone and its slot gets new dice."""
    answer(as_json, appended(db, as_json, campaign, lambda refit: refit.audit.reroll(
        campaign_key(campaign), key, reason, by)))


@app.command()
def ruling(campaign: Id,
           verdict: Annotated[str, typer.Option(help="upheld or corrected.")],
           reason: Reason,
           key: Annotated[str | None, typer.Option(
               help="The disputed roll's key (none: a ruling on the record).")] = None,
           final: Annotated[int | None, typer.Option(help="The corrected Final roll.")] = None,
           result: Annotated[str | None, typer.Option(help="The corrected result.")] = None,
           drm: Annotated[list[str] | None, typer.Option(
               help='The ruling\'s DRM for the roll, JSON: {"value": -1, "reason": "..."} '
                    "(repeat for each).")] = None,
           correction: Annotated[list[str] | None, typer.Option(
               help='A correction, JSON with its kind: adjust {"side", "pool": '
                    'cpp|fpp|elr|san, "amount", "reason", "rule"}, void_roll {"reason"}, '
                    'amend_purchase {"side", "purchase", "rg", "cost", "strength", '
                    '"reason"}, missed_roll {"table", "side", "subject", "reason"} '
                    "(repeat for each).")] = None,
           disputed_by: Annotated[str | None, typer.Option(
               help="The side that disputed the roll.")] = None,
           by: By = "director", db: Db = None, as_json: Json = False) -> None:
    """Record a ruling on a disputed roll (or on the record), with its corrections applied
    from it on; it shows beside the roll everywhere, to both sides."""
    answer(as_json, appended(db, as_json, campaign, lambda refit: refit.audit.record_ruling(
        campaign_key(campaign), key, verdict, reason, by, final, result,
        [_json(text, "correction") for text in correction or []],
        None if drm is None else [_json(text, "drm") for text in drm], disputed_by)))


@app.command()
def dispute(campaign: Id,
            version: Annotated[int, typer.Option(help="The version the roll was made at.")],
            reason: Reason,
            by: Annotated[str, typer.Option(
                "--by", help="The side disputing it (a side disputes; the director rules).")],
            db: Db = None, as_json: Json = False) -> None:
    """A side's dispute of a roll it may read (its own, or the other side's public one),
    awaiting the director's ruling (`refit ruling`), which settles it."""
    answer(as_json, appended(db, as_json, campaign, lambda refit: refit.audit.dispute_roll(
        campaign_key(campaign), version, by, reason, by)))


def _json(text: str, option: str) -> Any:
    """One JSON option value, refused naming its option when it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise InvalidCommand(f"--{option} is JSON, e.g. {{\"kind\": \"adjust\", ...}}",
                             field=option) from None


@app.command()
def audit(campaign: Id,
          key: Annotated[str | None, typer.Option(help="The roll's key.")] = None,
          version: Annotated[int | None, typer.Option(
              help="The version the roll was made at (another side's secret roll).")] = None,
          viewer: Viewer = None, db: Db = None, as_json: Json = False) -> None:
    """Everything about one roll: who asked and when, dice, DRM, result, secrecy, the
    seed's recheck, rulings and what they changed, re-rolls and undos."""
    found = query(db, as_json, lambda refit: refit.audit.roll_audit(
        campaign_key(campaign), key, viewer_of(refit, campaign, viewer), version))

    def human() -> None:
        for made in found.rolls:
            drm = " ".join(f"{d['value']:+d} {d['reason']}" for d in made.drm) or "no DRM"
            seed = made.seed_check
            check = "" if seed is None else \
                f"; seed recheck {seed.dice} {'OK' if seed.matches else 'BAD'}"
            state = "standing" if made.standing else f"undone by v{made.undone_by}"
            typer.echo(f"v{made.version} {made.timestamp} asked by {made.asked_by}: "
                       f"{made.side} {made.kind} {made.rule} {made.title}: dice {made.dice} "
                       f"{drm} = Final {made.final}: {made.result} ({state}{check})")
        for sealed in found.sealed:
            typer.echo(f"v{sealed.version} {sealed.timestamp}: a secret {sealed.side} roll")
        for item in found.rulings:
            typer.echo(f"ruling v{item['version']}: {item['verdict']}: {item['reason']}")
            for changed in item.get("changed", []):
                typer.echo(f"  v{changed['version']} {changed['kind']} ({changed['side']})"
                           + (": sealed" if changed.get("sealed") else ""))
        for item in found.rerolls:
            typer.echo(f"re-roll v{item['version']} (epoch {item['epoch']}): {item['reason']}")
    emit(as_json, found, human)


@app.command()
def diff(campaign: Id,
         start: Annotated[str, typer.Option("--from", help="A version or CGDATE/STEP.")],
         end: Annotated[str | None, typer.Option("--to", help="A version or CGDATE/STEP "
                                                              "(default: now).")] = None,
         viewer: Viewer = None, db: Db = None, as_json: Json = False) -> None:
    """What changed in the roster, purchase record, CVP and ELR between two points."""
    changes = query(db, as_json, lambda refit: refit.audit.diff(
        campaign_key(campaign), start, end, viewer_of(refit, campaign, viewer)))
    emit(as_json, changes, lambda: print_table(
        ["form", "line", "field", "change", "before", "after"],
        [row for c in changes for row in _diff_rows(c)]))


def _diff_rows(change: Any) -> list[list[str]]:
    """A change's table rows: a line added or removed shows each of its fields (`sides.Axis.
    cpp_left`, as a change names one) on a row of its own, so no value is cut short."""
    added = change.change == "added"
    whole = change.after if added else change.before
    if change.field is None and isinstance(whole, dict):
        return [[change.form, change.line, name, change.change, "" if added else text,
                 text if added else ""] for name, text in _fields(whole)]
    return [[change.form, change.line, change.field or "", change.change,
             cell(change.before), cell(change.after)]]


def _fields(doc: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """A line's fields, nested ones by their dotted path, each value as a cell."""
    found: list[tuple[str, str]] = []
    for name, value in doc.items():
        if isinstance(value, dict) and value:
            found += _fields(value, f"{prefix}{name}.")
        else:
            found.append((f"{prefix}{name}", cell(value)))
    return found


@app.command()
def forms(campaign: Id, form: Annotated[str, typer.Option(
              help="roster, purchases, cvp, elr (CSV) or html (all four, printable).")]
          = "html", as_of: AsOf = None, viewer: Viewer = None, db: Db = None,
          as_json: Json = False) -> None:
    """The paper forms: the CG Roster, RG Purchase Record, CVP and ELR history."""
    text = guarded(as_json, lambda: _form(db, campaign, form, as_of, viewer))
    _write(text, as_json, {"campaign": campaign, "form": form, "as_of": as_of})


def _form(db: str | None, campaign: str, form: str, as_of: str | None,
          viewer: str | None) -> str:
    from api.forms import check_form, render_form

    with ledger(db) as refit:
        check_form(form)  # a bad --form is refused as such, even for a campaign not there
        return render_form(refit.reads.paper_forms(
            campaign_key(campaign), as_of, viewer_of(refit, campaign, viewer)), form)


@app.command()
def report(campaign: Id, fmt: Annotated[str, typer.Option(
               "--format", help="text or html.")] = "text",
           viewer: Viewer = None, db: Db = None, as_json: Json = False) -> None:
    """The campaign's full history, CG Date by CG Date and step by step, for a person."""
    text = guarded(as_json, lambda: _report(db, campaign, fmt, viewer))
    _write(text, as_json, {"campaign": campaign, "format": fmt})


def _write(text: str, as_json: bool, about: dict[str, str | None]) -> None:
    """A document as it is, or with --json as JSON: what it is, and its text."""
    sys.stdout.write(json.dumps(about | {"text": text}) + "\n" if as_json else text)


def _report(db: str | None, campaign: str, fmt: str, viewer: str | None) -> str:
    from api.report import history_report

    if fmt not in ("text", "html"):
        raise ValueError(f"format is text or html, not {fmt!r}")
    with ledger(db) as refit:
        ident = campaign_key(campaign)
        return history_report(refit.reads.history(ident, viewer_of(refit, campaign, viewer)),
                              "html" if fmt == "html" else "text",
                              refit.audit.undone_versions(ident))
