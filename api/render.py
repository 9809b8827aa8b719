"""Plain-text tables laid out like the paper forms, as strings (the command line prints them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from projections.read import (
    CampaignStatus,
    CVPAnswer,
    ELRAnswer,
    HoldingRow,
    LVPRow,
    ObjectiveRow,
    PurchaseRow,
    RatingChange,
    ReportRow,
    RetainedRow,
    RollRow,
    RosterRow,
)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell, a rule under the headers."""
    cells = [[_text(v) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(line.rstrip() for line in lines)


def roster_rows(rows: list[RosterRow]) -> tuple[list[str], list[list[Any]]]:
    """The CG Roster: one line per CG Date and side (a column no line fills is left out:
    WW is ABtF's, CPP forgone PBr CG III's, ...)."""
    headers = ["CG Date", "side", "CPP start", "+CPP", "spent", "left", "forfeited",
               "forgone", "recon CPP", "RG purchased", "FPP", "fortifications", "FPP forfeited",
               "ELR", "SAN",
               "chit", "recon", "WW", "scenario", "sets up/moves first", "weather"]
    body = []
    for row in rows:
        for index, (side, cell) in enumerate(row.sides.items()):
            rgs = (", ".join(f"{p['rg']}{'(' + p['kg'] + ')' if p.get('kg') else ''} {p['cpp']}"
                             for p in cell.rg_purchased) if cell.rg_purchased is not None
                   else "(secret)")
            forts = (", ".join(f"{f['item']} {f['fpp']}" for f in cell.fortifications)
                     if cell.fortifications is not None else "(secret)")
            first = index == 0
            order = "/".join(s or "?" for s in (row.sets_up_first, row.moves_first)) \
                if first and (row.sets_up_first or row.moves_first) else None
            body.append([row.cg_date if first else "", side, cell.cpp_start, cell.cpp_credited,
                         cell.cpp_spent, cell.cpp_left, cell.cpp_forfeited or None,
                         cell.cpp_forgone or None, cell.recon_cpp or None, rgs, cell.fpp,
                         forts, cell.fpp_forfeited or None, cell.elr, cell.san, cell.chit,
                         cell.recon,
                         cell.ww_received["count"] if cell.ww_received else None,
                         row.scenario_type if first else "", order,
                         ", ".join(filter(None, (row.weather, row.ec, row.wind)))
                         if first else ""])
    return _filled(headers, body, {"forfeited", "forgone", "recon CPP", "FPP forfeited",
                                   "recon", "WW", "sets up/moves first"})


def _filled(headers: list[str], body: list[list[Any]],
            optional: set[str]) -> tuple[list[str], list[list[Any]]]:
    """Leave out each optional column that no line fills."""
    keep = [i for i, header in enumerate(headers)
            if header not in optional or any(line[i] not in (None, "") for line in body)]
    return [headers[i] for i in keep], [[line[i] for i in keep] for line in body]


def roll_rows(rows: list[RollRow]) -> tuple[list[str], list[list[Any]]]:
    """Every roll with its itemized DRM."""
    headers = ["v", "CG Date", "step", "side", "table", "dr/DR", "dice", "DRM", "Final",
               "result", "subject"]
    body = []
    for r in rows:
        if r.hidden:
            body.append([r.version, "", "", r.side, "(secret)", "", "", "", "", "", ""])
            continue
        drm = " ".join(f"{d['value']:+d} {d['reason']}" for d in (r.drm or []))
        body.append([r.version, r.cg_date, r.step, r.side, r.table, r.kind,
                     dice_text(r.dice or []), drm, r.final, r.result, r.subject])
    return headers, body


def purchase_rows(rows: list[PurchaseRow]) -> tuple[list[str], list[list[Any]]]:
    """The RG Purchase Record: one line per RG, `(secret)` where hidden."""
    headers = ["#", "side", "CG Date", "RG", "group type", "CPP", "#P", "#R", "F/D", "units",
               "SW received", "leader(s)", "Setup/Entry Area"]
    body = [[r.purchase, r.side, r.cg_date,
             (r.rg + (f"({r.kg})" if r.kg else "")) if r.rg else "(secret)", r.group_type,
             r.cpp, r.p, r.r, r.strength, r.units, sw_text(r.sw_received),
             ", ".join(r.leaders or []), r.setup_area]
            for r in rows]
    return headers, body


def sw_text(received: dict[str, int] | None) -> str:
    """3.6182's SW Received: the number of each type, e.g. `2 LMG, 1 PIAT`."""
    return ", ".join(f"{count} {sw}" for sw, count in (received or {}).items())


def retained_rows(rows: list[RetainedRow]) -> tuple[list[str], list[list[Any]]]:
    """Retained units: one line per unit type, CG Date and side."""
    return (["CG Date", "side", "unit", "count", "area", "RG #", "hex", "HIP", "fort.",
             "off map", "Isolated", "shifted from"],
            [[r.cg_date, r.side, r.unit, r.count, r.area, r.purchase, r.hex,
              "yes" if r.hip else "", "yes" if r.fortification else "",
              "yes" if r.off_map else "", "yes" if r.isolated else "", r.shifted_from]
             for r in rows])


def control_rows(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Who controls each Location whose control was recorded."""
    return (["location", "kind", "controlled by", "before", "CG Date", "rule"],
            [[r["location"], r["kind"], r["side"] or "(nobody)", r["previous"], r["cg_date"],
              r["rule"]] for r in rows])


def dice_text(dice: list[int]) -> str:
    """A dr as its die; a DR as coloured and white die, kept apart: `3c+5w`."""
    if len(dice) == 2:
        return f"{dice[0]}c+{dice[1]}w"
    return "+".join(str(d) for d in dice)


def rating_rows(changes: list[RatingChange]) -> tuple[list[str], list[list[Any]]]:
    """ELR/SAN changes with their causes."""
    return (["v", "CG Date", "side", "from", "to", "cause", "rule"],
            [[c.version, c.cg_date, c.side, c.before, c.after, c.cause, c.rule]
             for c in changes])


def report_rows(rows: list[ReportRow]) -> tuple[list[str], list[list[Any]]]:
    """The reports between the sides: what each said, and how it was answered."""
    return (["#", "v", "CG Date", "by", "report", "status", "answered by", "why"],
            [[r.report, r.version, r.cg_date, r.by, r.what, r.status, r.answered_by,
              r.reason] for r in rows])


def lvp_rows(rows: list[LVPRow]) -> tuple[list[str], list[list[Any]]]:
    """KGP LVP totals: one line per CG-Scenario End and side (8.2)."""
    return (["CG Date", "side", "Current-LVP", "CG-LVP", "by Map Group"],
            [[r.cg_date, side, r.current[side], r.cg_total[side],
              ", ".join(f"{g} {v[side]}" for g, v in r.by_map_group.items())]
             for r in rows for side in r.current])


def objective_rows(rows: list[ObjectiveRow]) -> tuple[list[str], list[list[Any]]]:
    """KGP Objective Hexes (8.6198), where each is once revealed."""
    return (["side", "RG #", "hex", "designated", "revealed"],
            [[r.side, r.purchase, r.hex, r.cg_date, r.revealed_on] for r in rows])


def holding_rows(rows: list[HoldingRow]) -> tuple[list[str], list[list[Any]]]:
    """KGP Holding Box entries (8.15), the side's own, in the order recorded."""
    return (["v", "CG Date", "side", "Entry Area", "units", "in its box"],
            [[r.version, r.cg_date, r.side, r.entry_area, r.units,
              "held" if r.held else "left the box"] for r in rows])


def table_text(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A table, or that there is nothing yet."""
    return format_table(headers, rows) if rows else "(none yet)"


def status_text(answer: CampaignStatus) -> str:
    """Where the campaign stands, and the rolls its step waits for."""
    lines = [f"{answer.name} ({answer.module} CG {answer.cg}), version {answer.version}",
             f"CG Date {answer.cg_date}, {answer.phase} {answer.step or ''}".rstrip(),
             table_text(["side", "CPP", "FPP", "ELR", "SAN"],
                        [[s, v["cpp"], v["fpp"], v["elr"], v["san"]]
                         for s, v in answer.sides.items()])]
    if answer.to_roll:
        lines.append(f"{answer.step} waits for: {', '.join(answer.to_roll)}")
    lines += [f"report {r['report']} ({r['what']}, {r['status']}) awaits the "
              f"{' or '.join(r['awaiting'])}" for r in answer.reports]
    lines += [f"roll {d['roll_version']} ({d['table']}, {d['rolled_on']}) disputed by the "
              f"{d['side']}, awaits the director's ruling: {d['reason']}"
              for d in answer.disputes]
    return "\n".join(lines)


def cvp_text(answer: CVPAnswer) -> str:
    """CVP lost per scenario and side, then each side's total."""
    return "\n".join([
        table_text(["scenario", "side (lost)", "CVP", "casualties"],
                   [[r.scenario, r.side, r.cvp, ", ".join(c["unit"] for c in r.casualties)]
                    for r in answer.scenarios]),
        table_text(["side", "total CVP lost"], [[s, t] for s, t in answer.totals.items()])])


def elr_text(answer: ELRAnswer) -> str:
    """ELR now per side, then each change with its cause."""
    return "\n".join([table_text(["side", "ELR"], [[s, v] for s, v in answer.current.items()]),
                      table_text(*rating_rows(answer.changes))])


def guide_text(answer: dict[str, Any]) -> str:
    """Per side: the rolls due and the Initiative chit to choose, then the optional rolls
    (with the DRM a side may claim, by id) and purchases, the tables not rolled now and
    why, and what leaving the step does."""
    lines = [_where(answer)]
    for side, part in answer["sides"].items():
        lines.append(f"{side}{' (done with the step)' if part['done'] else ''}")
        due = [f"  due: {_work(w)}" for w in part["due"]]
        if part.get("chit"):
            due.append(f"  due: {_chit(part['chit'])}")
        lines += due or ["  due: nothing"]
        lines += [f"  may: {_work(w)}" for w in part["optional"]]
        lines += [f"  not now: {t['title']} ({t['rule']}): {t['why']}"
                  for t in part.get("not_now", [])]
        lines += [f"  on leaving: {note}" for note in part["on_leaving"]]
    lines += [f"report {r['report']} ({r['what']}): {r['status']}, awaits the "
              f"{' or '.join(r['awaiting'])}" for r in answer.get("reports", [])]
    return "\n".join(lines)


def _where(answer: dict[str, Any]) -> str:
    """The guide's first line: the CG Date and where the campaign is in it."""
    date, phase, step = answer["cg_date"], answer["phase"], answer["step"]
    if phase == "scenario":
        return (f"CG Date {date}: the CG Scenario is in play (the director records each "
                "side's casualties, record_casualty, and ends it, end_scenario)")
    if phase == "ended":
        return f"CG Date {date}: CG End (the dice seed is revealed; verify checks every roll)"
    title = f" {answer['title']}" if answer.get("title") else ""
    before = " (before the Initial Scenario: the ! steps only)" if phase == "setup" else ""
    return f"CG Date {date}, RePh step {step}{title}{before}"


def _work(work: dict[str, Any]) -> str:
    """One roll (table, dr/DR, subject, DRM, claims), report to answer or purchase of the
    guide, on one line."""
    if "report" in work:
        return f"answer report {work['report']} ({work['what']}): " + \
            " or ".join(work["commands"])
    if "purchase" in work:
        return (f"buy {work['rg']}{'(' + work['kg'] + ')' if work.get('kg') else ''} "
                f"{work.get('group_type') or ''} for {work['cost']} CPP"
                if work["purchase"] == "rg"
                else f"Fortifications with {work['fpp']} FPP ({work['rule']}, "
                "purchase_fortification)")
    subject = {"step": "", "unit:LABEL": " for each unit you name (subject unit:LABEL)"}.get(
        work["subject"], f" for {work['subject']}")
    roll = "" if work["title"].endswith(work["roll"]) else f" {work['roll']}"
    cost = f" (costs {work['cpp']} CPP)" if work.get("cpp") else ""
    text = f"{work['table']} {work['title']}{roll}{cost}{subject}"
    notes = []
    if work["drm"]:
        notes.append("DRM " + ", ".join(f"{d['value']:+d} {d['reason']}" for d in work["drm"]))
    if work["claims"]:
        notes.append("may claim " + ", ".join(_claim(c) for c in work["claims"]))
    if work["secret"]:
        notes.append("secret")
    return text + "".join(f"; {note}" for note in notes)


def _claim(claim: dict[str, Any]) -> str:
    """A DRM the side may claim: its id (what the roll sends), value and reason."""
    value = f"{claim['value']:+d}" if isinstance(claim["value"], int) else str(claim["value"])
    count = ", with its count" if claim["count"] else ""
    cost = f", {claim['cpp']} CPP more" if claim.get("cpp") else ""
    return f"{claim['id']} ({value} {claim['reason']}{count}{cost})"


def _chit(chit: dict[str, Any]) -> str:
    """The Initiative chit a side must choose, and which it may; or the other side's chit
    it waits for (the chits are revealed together)."""
    if chit["chosen"]:
        return (f"the {', '.join(chit['waiting_for'])} Initiative chit ({chit['rule']}): "
                "the chits are revealed together")
    choices = " or ".join(chit["chits"]) or "none (ask the director)"
    return (f"an Initiative chit ({chit['rule']}): {choices}, secret until both sides have "
            "chosen (select_initiative)")


def _table(rows: Callable[[Any], tuple[list[str], list[list[Any]]]]) -> Callable[[Any], str]:
    return lambda answer: table_text(*rows(answer))


# The terminal text of each read a `refit` command prints (infra/queries.py, READS).
TEXT: dict[str, Callable[[Any], str]] = {
    "status": status_text,
    "roster": _table(roster_rows),
    "purchase_record": _table(purchase_rows),
    "cvp": cvp_text,
    "elr": elr_text,
    "san": _table(rating_rows),
    "control": _table(control_rows),
    "lvp": _table(lvp_rows),
    "objectives": _table(objective_rows),
    "holding": _table(holding_rows),
    "retained": _table(retained_rows),
    "rolls": _table(roll_rows),
    "report_log": _table(report_rows),
    "guide": guide_text,
}
