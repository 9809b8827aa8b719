"""A campaign's history as a report for a tournament director: every CG Date, step by step."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from html import escape
from typing import Any, Literal, NamedTuple

from api.render import dice_text
from domain.campaign.reports import control_terms
from domain.modules.kgp.rules import pf_text

Format = Literal["text", "html"]
Data = dict[str, Any]
ENVELOPE = frozenset({"campaign", "version", "type", "timestamp", "prev_hash", "sealed", "salt",
                      "redacted"})
NOT_SHOWN = frozenset({"actor", "secret_for", "state", "token_hashes"})  # noted, or internal


class Line(NamedTuple):
    """One line of the report: the title, a CG Date or step heading, an event, the end."""

    kind: str  # title, date, step, event, end
    text: str
    version: int | None = None
    when: str = ""
    note: str = ""
    undone: bool = False


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value)
    return str(value)


# Kinds whose name is the code's, not the game's: said as the history report says them.
KIND_WORDS = {"PurchasePadded": "Sealed record of a secret purchase (nothing happened)"}


def kind_words(kind: str) -> str:
    """`RerollAuthorized` -> `Reroll authorized`."""
    if kind in KIND_WORDS:
        return KIND_WORDS[kind]
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", kind).split(" ")
    return " ".join([words[0], *(w if w.isupper() else w.lower() for w in words[1:])])


def generic(kind: str, data: Data) -> str:
    """Any event: its type in words, then each field that has a value."""
    fields = "; ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in data.items()
                       if k not in NOT_SHOWN and v not in (None, "", [], {}))
    return f"{kind_words(kind)}: {fields}" if fields else kind_words(kind)


def _rule(d: Data) -> str:
    return f" ({d['rule']})" if d.get("rule") else ""


def _drm(item: Data) -> str:
    return f"{item['value']:+d} {item['reason']}{_rule(item)}"


def _roll(d: Data) -> str:
    subject = f" for {d['subject']}" if d.get("subject") else ""
    drm = ", ".join(_drm(item) for item in d["drm"]) or "none"
    target = f" against {d['target']}" if d.get("target") is not None else ""
    entered = f"; dice entered by {d['entered_by']}" if d.get("entered_by") else ""
    return (f"{d['side']} {d['kind']} on {d['table']} {d['title']} (rule {d['rule']}){subject}: "
            f"dice {dice_text(d['dice'])} = Original {d['original']}; DRM {drm}; "
            f"Final {d['final']}{target} -> {d['result']}; key {d['key']}{entered}")


def _points(verb: str, pool: str) -> Callable[[Data], str]:
    return lambda d: f"{d['side']} {verb} {d['amount']} {pool}: {d['reason']}{_rule(d)}"


def _rating(name: str) -> Callable[[Data], str]:
    def text(d: Data) -> str:
        change = f"{d['before']} -> {d['after']}" if d["before"] is not None else \
            f"set to {d['after']}"
        return f"{d['side']} {name} {change}: {d['cause']}{_rule(d)}"
    return text


def _purchase(d: Data) -> str:
    kg = f"({d['kg']})" if d.get("kg") else ""
    mode = f", {mode_words(d['mode'])}" if d.get("mode") else ""
    note = f" with option {d['option'].replace('_', ' ')}" if d.get("option") else ""
    of = f" of {d['cg_max']}" if d.get("cg_max") is not None else ""
    return (f"{d['side']} purchased RG #{d['purchase']}: {d['rg']}{kg} {d['group_type']} for "
            f"{d['cost']} CPP{mode}{note} (#{d['number']}{of} this CG)")


MODES = {"entry": "entry", "reserve": "in reserve", "on_map": "on map"}  # 3.6175, in words


def mode_words(mode: str) -> str:
    """How an RG was bought (3.6175), in words."""
    return MODES.get(mode, mode)


def _determined(d: Data) -> str:
    parts = [d.get("strength") and {"F": "Full", "D": "Depleted"}.get(d["strength"],
                                                                       d["strength"]),
             d.get("units"), d.get("sw") and f"SW {_value(d['sw'])}",
             d.get("leader") and f"leader {d['leader']}", d.get("composition")]
    return f"{d['side']} RG #{d['purchase']}: " + ", ".join(p for p in parts if p)


def _control(d: Data) -> str:
    lvp = f", {d['lvp']} LVP" if d.get("lvp") else ""
    group = f", Map Group {d['map_group']}" if d.get("map_group") else ""
    infantry = ", by Infantry" if d.get("infantry") else ""
    return (f"{d['location']} ({d['kind']}{lvp}{group}{infantry}) now controlled by "
            f"{d['side'] or 'nobody'} (was {d['previous'] or 'nobody'}){_rule(d)}")


def _step(d: Data) -> str:
    skipped = f"; rolls skipped: {'; '.join(d['skipped'])}" if d.get("skipped") else ""
    done = f"step {d['previous']} complete" if d.get("previous") else "the RePh begins"
    return done + skipped


def _casualty(d: Data) -> str:
    ww = f", {d['ww_half_squads']} HS to the WW box" if d.get("ww_half_squads") else ""
    return f"{d['side']} lost {d['unit']}: {d['cvp']} CVP (scenario {d['scenario']}){ww}"


def _answer(d: Data, what: str) -> str:
    who = f"the {d['side']}" if d.get("side") else "the director"
    return f"report {d['report']} ({d['by']} {d['kind']}) {what} by {who}"


def _created(d: Data) -> str:
    seed = f", seed commitment {d['seed_commitment']}" if d.get("seed_commitment") else ""
    return (f"campaign {d['name']!r} opened: {d['module']} CG {d['cg']}, "
            f"{' vs '.join(d['sides'])}, {d['dice']} dice{seed}")


def _fixed(d: Data) -> list[str]:
    """What a ruling corrected on its roll, as "final 7", "result 8-1" (none: it stands)."""
    return [f"{k} {d[k]}" for k in ("final", "result") if d.get(k) is not None]


def _corrected(d: Data) -> str:
    """What a sealed ruling corrected on its roll: nothing where it upheld it."""
    fixed = _fixed(d)
    return f": corrected to {', '.join(fixed)}" if fixed else ": the roll stands"


def _ruling(d: Data) -> str:
    roll = f" (v{d['roll_version']})" if d.get("roll_version") else ""
    fixed = _fixed(d)
    corrected = f" (corrected: {', '.join(fixed)})" if fixed else ""
    what = f"ruling on roll {d['key']}{roll}" if d.get("key") is not None else \
        f"ruling on a secret roll{roll}" if d.get("roll_version") else "ruling on the record"
    kinds = f" [{', '.join(d['corrections'])}]" if d.get("corrections") else ""
    return f"{what}: {d['verdict']}{corrected}{kinds}: {d['reason']}"


def _upgraded(d: Data) -> str:
    """The module data a campaign plays from here: which, and what changed (README)."""
    old = d["old_hash"][:12] if d.get("old_hash") else "unpinned"
    changes = [f"{c['at']} {c['change']}" + (f" {_value(c['before'])} -> {_value(c['after'])}"
                                            if "before" in c and "after" in c else "")
               for c in d["changes"] if c.get("change") != "more"]
    shown = "; ".join(changes[:5]) + ("; ..." if len(d["changes"]) > 5 else "")
    return (f"{d['module']} module data {old} -> {d['new_hash'][:12]}: {d['reason']}"
            + (f" ({shown})" if shown else ""))


# KGP CG13's reasons a PF count changes, as the history says them
PF_WORDS = {"setup": ("squad set up on map", "squads set up on map"),
            "released": ("squad released from Reserve", "squads released from Reserve"),
            "entered": ("squad entered", "squads entered"), "used": ("PF used", "PF used")}
DESCRIBE: dict[str, Callable[[Data], str]] = {
    "Created": _created,
    "DiceRolled": _roll,
    "CPPCredited": _points("credited", "CPP"),
    "CPPSpent": _points("spent", "CPP"),
    "FPPCredited": _points("credited", "FPP"),
    "FortificationPurchased": lambda d: (f"{d['side']} purchased {d.get('count', 1)} x "
                                         f"{d['reason']} for {d['amount']} FPP{_rule(d)}"),
    "CPPForgone": lambda d: f"{d['side']} forgo {d['amount']} CPP{_rule(d)}",
    "RulingSealed": lambda d: f"ruling v{d['ruling']} on roll {d['key']}" + _corrected(d),
    "PointsCorrected": lambda d: (f"{d['side']} {d['pool'].upper()} {d['before']} -> "
                                  f"{d['after']} by ruling v{d['ruling']}{_rule(d)}"),
    "PurchaseAmended": lambda d: (f"{d['side']} RG #{d['purchase']} amended by ruling "
                                  f"v{d['ruling']}: " + ", ".join(
                                      f"{k} {a} -> {b}" for k, (a, b) in d["changes"].items())),
    "RollVoided": lambda d: f"roll {d['key']} voided by ruling v{d['ruling']}: {d['reason']}",
    "RollAuthorized": lambda d: (f"{d['side']} {d['table']} {d['subject']} authorized after "
                                 f"{d['step']} by ruling v{d['ruling']}"),
    "PointsAdjusted": lambda d: (f"{d['side']} {d['pool'].upper()} {d['before']} -> "
                                 f"{d['after']}{_rule(d)}"),
    "RGPurchased": _purchase,
    "RGReceived": lambda d: (f"{d['side']} received RG #{d['purchase']}: {d['rg']} "
                             f"{d['group_type']}: {d['reason']}{_rule(d)}"),
    "RGDetermined": _determined,
    "RGRemoved": lambda d: f"{d['side']} RG #{d['purchase']} removed: {d['reason']}{_rule(d)}",
    "CasualtyRecorded": _casualty,
    "ControlChanged": _control,
    "CasualtyReported": lambda d: f"report {d['report']}: " + _casualty(d) + ", to confirm",
    "CasualtyLineReported": lambda d: (f"report {d['report']}: the {d['side']} casualty "
                                       + (f"came from RG #{d['purchase']}" if d['purchase']
                                          else "came from no RG line")),
    "ControlReported": lambda d: (f"report {d['report']}: the {d['side']} Controls "
                                  f"{d['location']} ({control_terms(d)}), to confirm"
                                  f"{_rule(d)}"),
    "ReportConfirmed": lambda d: _answer(d, "confirmed"),
    "ReportDisputed": lambda d: _answer(d, "disputed") + f": {d['reason']}",
    "ReportWithdrawn": lambda d: _answer(d, "withdrawn" if d.get("side") else "rejected")
    + f": {d['reason']}",
    "ELRChanged": _rating("ELR"),
    "SANChanged": _rating("SAN"),
    "LevelChanged": lambda d: (f"{d['level']} ({d['side']}) {d['before']} -> {d['after']}: "
                               f"{d['cause']}{_rule(d)}"),
    "InitiativeSelected": lambda d: f"{d['side']} chose the {d['chit']} Initiative chit",
    "ChitsRevealed": lambda d: (f"Initiative chits: {_value(d['chits'])}"
                                + (f" = {d['scenario_type']}" if d.get("scenario_type") else "")),
    "ReconRolled": lambda d: f"{d['side']} reconnoitre {d['locations']} Locations{_rule(d)}",
    "StepAdvanced": _step,
    "StepDoneBySide": lambda d: (f"the {d['side']} done with step {d['step']} ({d['cg_date']})"
                                 if d.get("step") else f"the {d['side']} done ({d['cg_date']})"),
    "CGDateStarted": lambda d: f"CG Date {d['cg_date']} begins (after {d['previous']})",
    "ScenarioEnded": lambda d: f"the CG Scenario of {d['cg_date']} ended",
    "TurnEnded": lambda d: (f"Game Turn {d['turn']}" + (f", Player Turn {d['player_turn']}"
                            if d.get("player_turn") else "") + f" ended ({d['rule']})"),
    "CGEnded": lambda d: f"CG End ({d['cg_date']}): every secret is open",
    "CGDecided": lambda d: (f"CG decided: {d['side']} {d['reason'].replace('_', ' ')}, "
                            f"{d['winner']} win{_rule(d)}"),
    "SeedRevealed": lambda d: f"dice seed revealed: {d['seed']}",
    "SeedShareContributed": lambda d: f"{d['side']} gave a dice seed share: {d['share']}",
    "TokenReplaced": lambda d: f"the {d['role']} token was replaced",
    "PurchasePadded": lambda d: f"{d['side']}: sealed record of a secret purchase "
                                "(nothing happened: every purchase appends as many)",
    "SideKeyRegistered": lambda d: (f"{d['side']} registered its co-signing key "
                                    f"{d['key']}" + (" (a new one)" if d.get("replaces")
                                                     else "")),
    "CheckpointCosigned": lambda d: (f"{d['side']} co-signed the checkpoint of size "
                                     f"{d['size']}, root {d['root']}"),
    "ModuleUpgraded": _upgraded,
    "Undone": lambda d: (f"UNDO back to version {d['to_version']}"
                         + (f" ({d['events']} events undone)" if d.get("events") else "")
                         + f": {d['reason']}"),
    "RulingRecorded": _ruling,
    "RollDisputed": lambda d: (f"the {d['side']} disputes the {d['table']} roll of "
                               f"{d['rolled_on']} (version {d['roll_version']}): "
                               f"{d['reason']}"),
    "OrderDecided": lambda d: ", ".join(
        f"{d[k]} {v}" for k, v in (("sets_up_first", "sets up first"),
                                   ("moves_first", "moves first")) if d.get(k)) + _rule(d),
    "SANAnnounced": lambda d: f"SAN announced: {_value(d['san'])}{_rule(d)}",
    "BombardmentResolved": lambda d: (f"{d['side']} RG #{d['purchase']}: its pre-game "
                                      f"Bombardment resolved for {d['cg_date']}, then "
                                      f"Eliminated (note i){_rule(d)}"),
    "RGAreaRecorded": lambda d: (f"{d['side']} RG #{d['purchase']} sets up/enters in "
                                 f"{d['area']}"),
    "RGCasualty": lambda d: (f"{d['side']} RG #{d['purchase']} lost {d['unit']}: "
                             f"{d['cvp']} CVP (scenario {d['scenario']})" if d['purchase']
                             else f"{d['side']} {d['unit']}: of no RG line"),
    "UnitsRetained": lambda d: (f"{d['side']} Retained"
                                + (" (sealed part)" if d.get("sealed_part") else "") + ": "
                                + ("; ".join(f"{u['count']} x {u['unit']} in {u['area']}"
                                             for u in d["units"]) or "none")),
    "RerollAuthorized": lambda d: (f"re-roll of {d['key']} authorized"
                                   + (f" (epoch {d['epoch']})" if d.get("epoch") else "")
                                   + f": {d['reason']}"),
    # KGP (8.2, 8.15, CG4, CG13, CG14)
    "PFChanged": lambda d: (f"{d['side']} PF: {d['count']} "
                            f"{PF_WORDS[d['reason']][d['count'] != 1 or d['reason'] == 'used']}, "
                            f"{pf_text(d['halves'])} PF now{_rule(d)}"),
    "FanaticismDeclared": lambda d: (f"{d['side']} declared Fanaticism for the "
                                     f"{d['scenario']} CG Scenario{_rule(d)}"),
    "MassacreRecorded": lambda d: (f"a Massacre by the {d['side']}: A20.3-.4's effects for "
                                   f"the rest of the CG{_rule(d)}"),
    "HoldingBoxChanged": lambda d: (f"{d['side']} Holding Box {d['entry_area']}: {d['units']}"
                                    + (" held" if d["held"] else " left the box")),
    "ObjectiveDesignated": lambda d: (f"{d['side']} designated Objective Hex {d['hex']} for "
                                      f"RG #{d['purchase']}{_rule(d)}"),
    "ObjectiveRevealed": lambda d: f"{d['side']} Objective Hex {d['hex']} revealed{_rule(d)}",
    "LVPTotalled": lambda d: (f"LVP totalled: Current-LVP {_value(d['current'])}; CG-LVP "
                              f"{_value(d['cg_total'])}{_rule(d)}"),
}


def describe(kind: str, data: Data) -> str:
    """An event in words; an unknown or unexpected one generically, never an error."""
    try:
        return DESCRIBE[kind](data) if kind in DESCRIBE else generic(kind, data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return generic(kind, data)


def step_title(phase: Any, step: Any) -> str:
    """Where the RePh stands, in words: `RePh step 9.612`, `CG Scenario in play`."""
    if step is None:
        return {"scenario": "CG Scenario in play", "ended": "CG ended"}.get(str(phase),
                                                                             str(phase))
    return f"Step {step} (before the Initial Scenario)" if phase == "setup" else \
        f"RePh step {step}"


def _note(record: Data, data: Data) -> str:
    """Who acted, and for whom a sealed event is kept secret."""
    secret = data.get("secret_for") if record.get("sealed") is not None else None
    parts = [f"secret to {secret}" if secret and not record.get("redacted") else "",
             f"by {data['actor']}" if data.get("actor") else ""]
    return "; ".join(p for p in parts if p)


def _parts(record: Any) -> tuple[str, Data]:
    """A record's type and data (a record without them: itself, as `record`)."""
    if not isinstance(record, dict):
        return "Record", {"value": record}
    data = record.get("data")
    if not isinstance(data, dict):
        data = {k: v for k, v in record.items() if k not in ENVELOPE}
    return str(record.get("type") or "Record"), data


def _event(record: Any, kind: str, data: Data, undone: bool) -> Line:
    rec: Data = record if isinstance(record, dict) else {}
    version = rec.get("version") if isinstance(rec.get("version"), int) else None
    when = str(rec.get("timestamp") or "")[:19].replace("T", " ")
    if rec.get("redacted"):  # who acted is under the seal (an older seal's actor too)
        owner = data.get("secret_for") or data.get("side") or "another side"
        return Line("event", f"sealed fact, secret to {owner}", version, when, "", undone)
    return Line("event", describe(kind, data), version, when, _note(rec, data), undone)


def in_words(record: Any) -> str:
    """One record of a history read, in words (another side's secret: a sealed fact)."""
    kind, data = _parts(record)
    return _event(record, kind, data, False).text


def _version(record: Any) -> int | None:
    version = record.get("version") if isinstance(record, dict) else None
    return version if isinstance(version, int) else None


class _Walk:
    """The report's state as the records stream by: the heading each version stood under."""

    def __init__(self, undone: set[int] | None) -> None:
        self.struck = undone or set()
        self.count = self.undone = 0
        self.date = self.step = ""
        self.marks: list[tuple[int, str, str]] = []  # (version, date, step) at each heading

    def feed(self, record: Any) -> Iterator[Line]:
        """The lines one record adds: its event line, and the headings it opens."""
        kind, data = _parts(record)
        version = _version(record)
        mark = version is not None and version in self.struck
        if self.count == 0:
            yield Line("title", str(data.get("name") or "Campaign history")
                       if kind == "Created" else "Campaign history")
        self.count, self.undone = self.count + 1, self.undone + mark
        if kind == "CGDateStarted":
            yield from self._headings(kind, data, mark, version)
        yield _event(record, kind, data, mark)
        if kind == "Undone" and not mark:
            yield from self._back_to(data.get("to_version"))
        elif kind != "CGDateStarted":
            yield from self._headings(kind, data, mark, version)

    def _headings(self, kind: str, data: Data, mark: bool, version: int | None) -> Iterator[Line]:
        if kind in ("Created", "CGDateStarted") and data.get("cg_date"):
            self.date = f"CG Date {data['cg_date']}"
            yield Line("date", self.date, undone=mark)
        if kind in ("Created", "StepAdvanced") and "step" in data:
            self.step = step_title(data.get("phase"), data["step"])
            yield Line("step", self.step, undone=mark)
        if kind in ("Created", "CGDateStarted", "StepAdvanced") and version is not None:
            self.marks.append((version, self.date, self.step))

    def _back_to(self, to_version: Any) -> Iterator[Line]:
        """After an undo: the CG Date and step the campaign is back at."""
        earlier = [m for m in self.marks if isinstance(to_version, int) and m[0] <= to_version]
        if not earlier:
            return
        _, date, step = earlier[-1]
        if date != self.date:
            self.date = date
            yield Line("date", f"{date} (again, after the undo)")
        self.step = step
        yield Line("step", f"{step} (again, after the undo to version {to_version})")

    def end(self) -> Iterator[Line]:
        """The closing line: how many events, how many undone."""
        if self.count == 0:
            yield Line("title", "Campaign history")
        undone = f", {self.undone} undone" if self.undone else ""
        yield Line("end", f"{self.count} events{undone}")


def report_lines(records: Iterable[Any], undone: set[int] | None = None) -> Iterator[Line]:
    """The report's lines, reading each record once, as it comes."""
    walk = _Walk(undone)
    for record in records:
        yield from walk.feed(record)
    yield from walk.end()


def _text(line: Line) -> list[str]:
    """A line as plain text: headings underlined, events indented under their step."""
    heading = f"{line.text}{' [undone]' if line.undone else ''}"
    if line.kind == "title":
        return [heading, "=" * len(heading)]
    if line.kind == "date":
        return ["", heading, "-" * len(heading)]
    if line.kind == "step":
        return [f"  {heading}"]
    if line.kind == "end":
        return ["", line.text]
    note = f"  ({line.note})" if line.note else ""
    version = "?" if line.version is None else line.version
    mark = "[undone] " if line.undone else ""
    return [f"    v{version:<4} {line.when}  {mark}{line.text}{note}"]


CSS = """
body{font:10pt/1.35 Georgia,"Times New Roman",serif;margin:1.5em;color:#000;background:#fff}
body{overflow-wrap:anywhere}
h1{font-size:16pt;margin:0 0 .5em}
h2{font-size:13pt;border-bottom:2px solid #000;margin:1.4em 0 .3em}
h3{font-size:10.5pt;margin:.8em 0 .2em;font-style:italic}
p.ev{margin:.1em 0 .1em 1.2em;text-indent:-1.2em}
span.v{font-weight:bold;display:inline-block;min-width:3.2em}
span.t,span.note{color:#444;font-size:8.5pt}
p.undone{color:#777}
del{text-decoration:line-through}
span.tag{font-weight:bold;color:#000}
p.end{margin-top:1.5em;border-top:1px solid #000}
@page{margin:12mm}
@media print{body{margin:0;font-size:9pt}h2,h3{break-after:avoid}p.ev{break-inside:avoid}}
"""


def _html(line: Line) -> str:
    text = escape(line.text)
    if line.undone:
        text = f"<del>{text}</del> <span class=\"tag\">[undone]</span>"
    if line.kind in ("title", "date", "step"):
        tag = {"title": "h1", "date": "h2", "step": "h3"}[line.kind]
        return f"<{tag}>{text}</{tag}>"
    if line.kind == "end":
        return f'<p class="end">{text}</p>'
    note = f' <span class="note">({escape(line.note)})</span>' if line.note else ""
    version = "?" if line.version is None else line.version
    return (f'<p class="ev{" undone" if line.undone else ""}"><span class="v">v{version}</span> '
            f'<span class="t">{escape(line.when)}</span> {text}{note}</p>')


def history_report(records: Iterable[dict[str, Any]], fmt: Format = "text",
                   undone: set[int] | None = None) -> str:
    """The whole history, readable by a person: plain text, or one printable HTML page."""
    if fmt not in ("text", "html"):
        raise ValueError(f"report format is text or html, not {fmt!r}")
    lines = report_lines(records, undone)
    if fmt == "text":
        return "\n".join(text for line in lines for text in _text(line)) + "\n"
    body, title = [], "Campaign history"
    for line in lines:
        title = line.text if line.kind == "title" else title
        body.append(_html(line))
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
                      *body, "</body></html>", ""])
