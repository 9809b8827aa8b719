"""The campaign's charts as SVG (issue 18, item 3), drawn from the statistics read as the
viewer sees them: CPP Start/Spent/Left, CVP per scenario, ELR and SAN, and the dice."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from api.svg import SERIES, WIDTH, Sheet, bar, esc, marker, rule, swatch, text
from projections.statistics import Distribution, Statistics

LABEL = 64  # the width of a row's label column (a CG Date, a scenario)
ROOM = 44  # room right of the longest bar for its value
# As the CG Roster adds them up: Start + CPP received - Spent - Forfeited = Left.
CPP_PARTS = (("start", "Start"), ("received", "+CPP"), ("spent", "Spent"),
             ("forfeited", "Forfeited"), ("left", "Left"))
SECRET = "kept secret"


def _scale(values: list[int | None]) -> float:
    """The largest value shown, so the longest bar fills the plot (at least 1)."""
    return float(max([v for v in values if v is not None] + [1]))


def _hbar(sheet: Sheet, value: int | None, scale: float, series: str, label: str) -> None:
    """A horizontal bar at the sheet's row, its value written after it."""
    length = (WIDTH - LABEL - ROOM) * (value or 0) / scale
    if value is None:
        sheet.add(text(LABEL, sheet.y + 11, "—", tone="muted", size=13))
    else:
        sheet.add(bar(LABEL, sheet.y, length, 12, series, f"{label}: {value}"),
                  text(LABEL + length + 4, sheet.y + 11, str(value), size=13))
    sheet.y += 14


def _legend(sheet: Sheet, names: list[str], lines: bool = False) -> None:
    """The series' colours and names on one line (wrapping to the next when full); for a
    line chart each with its line and marker."""
    x, sheet.y = 0.0, sheet.y + 18
    for index, name in enumerate(names):
        width = (48 if lines else 30) + 7.5 * len(name)
        if x and x + width > WIDTH:
            x, sheet.y = 0.0, sheet.y + 18
        series = SERIES[index % len(SERIES)]
        if lines:
            sheet.add(rule(x, sheet.y - 4, x + 26, sheet.y - 4, tone=series, width=2.5,
                           dash="6 4" if index % 2 else None),
                      marker(x + 13, sheet.y - 4, series, name, bool(index % 2), "rc-key"),
                      text(x + 32, sheet.y, name))
        else:
            sheet.add(swatch(x, sheet.y, series, name))
        x += width


def cpp_chart(stats: Statistics) -> str:
    """Grouped bars: each side's CPP Start, +CPP, Spent, Forfeited and Left per CG Date
    (the CG Roster)."""
    sheet = Sheet()
    _legend(sheet, [name for _, name in CPP_PARTS])
    scale = _scale([getattr(p, part) for points in stats.cpp.values() for p in points
                    for part, _ in CPP_PARTS])
    for side in stats.sides:
        sheet.heading(f"{side} CPP")
        for point in stats.cpp[side]:
            if point.hidden:
                sheet.note(f"{point.cg_date}: {SECRET}")
                sheet.say(f"{side} {point.cg_date}: CPP {SECRET}.")
                sheet.y += 6
                continue
            sheet.y += 6
            sheet.add(text(0, sheet.y + 7 * len(CPP_PARTS) + 4, point.cg_date))
            values = [(getattr(point, part), name) for part, name in CPP_PARTS]
            for index, (value, name) in enumerate(values):
                _hbar(sheet, value, scale, SERIES[index], f"{side} {point.cg_date} {name}")
            sheet.say(f"{side} {point.cg_date}: " + ", ".join(
                f"{name} {'not recorded' if v is None else v}" for v, name in values) + ".")
        if not stats.cpp[side]:
            sheet.note("No CG Date recorded yet.")
    sheet.note(stats.rules["cpp"])
    return sheet.svg("CPP per CG Date", "Start, +CPP, Spent, Forfeited and Left CPP of "
                     "each side per CG Date, from the CG Roster", "cpp")


def cvp_chart(stats: Statistics) -> str:
    """Bars: the CVP each side lost per CG Scenario, then each side's total."""
    sheet = Sheet()
    _legend(sheet, stats.sides)
    sheet.heading("CVP lost per scenario")
    scale = _scale([v for row in stats.cvp.scenarios for v in row.cvp.values()])
    for row in stats.cvp.scenarios:
        _group(sheet, row.scenario, row.cvp, stats.sides, scale)
    if not stats.cvp.scenarios:
        sheet.note("No casualty recorded yet.")
    sheet.heading("Total CVP lost")
    _group(sheet, "Total", stats.cvp.totals, stats.sides, _scale(list(stats.cvp.totals.values())))
    return sheet.svg("CVP per scenario", "Casualty Victory Points each side lost per CG "
                     "Scenario, and in total", "cvp")


def _group(sheet: Sheet, label: str, values: dict[str, int], sides: list[str],
           scale: float) -> None:
    """One labelled group of bars, a bar per side."""
    sheet.y += 6
    sheet.add(text(0, sheet.y + 11 + 7 * (len(sides) - 1), label))
    for index, side in enumerate(sides):
        _hbar(sheet, values.get(side, 0), scale, SERIES[index % len(SERIES)],
              f"{side} {label}")
    sheet.say(f"{label}: " + ", ".join(f"{side} {values.get(side, 0)}" for side in sides)
              + ".")


PLOT_LEFT, PLOT_HEIGHT = 34, 120


def ratings_chart(stats: Statistics) -> str:
    """Lines: each side's ELR, then SAN, over the CG Dates."""
    sheet = Sheet()
    _legend(sheet, stats.sides, lines=True)
    for name in ("ELR", "SAN"):
        sheet.heading(name)
        series = {side: [getattr(p, name.lower()) for p in stats.ratings[side]]
                  for side in stats.sides}
        _lines(sheet, stats.cg_dates, series, name)
    return sheet.svg("ELR and SAN per CG Date", "Each side's ELR and SAN over the CG Dates, "
                     "from the CG Roster", "ratings")


def _lines(sheet: Sheet, dates: list[str], series: dict[str, list[int | None]],
           name: str) -> None:
    """A line per side over the CG Dates, a marker at each value; a gap where none is."""
    values = [v for points in series.values() for v in points if v is not None]
    if not values:
        sheet.note(f"No {name} recorded yet.")
        return
    top, base = max([*values, 5]), sheet.y + 8 + PLOT_HEIGHT
    step = (WIDTH - PLOT_LEFT - 12) / max(len(dates) - 1, 1)

    def at(index: int, value: int) -> tuple[float, float]:
        return PLOT_LEFT + 6 + step * index, base - PLOT_HEIGHT * value / top

    for tick in range(top + 1):
        y = base - PLOT_HEIGHT * tick / top
        sheet.add(rule(PLOT_LEFT, y, WIDTH, y),
                  text(PLOT_LEFT - 6, y + 4, str(tick), tone="muted", size=13, anchor="end"))
    for index, date in enumerate(dates):
        x, _ = at(index, 0)
        sheet.add(text(x, base + 16, date, size=13, anchor="end" if len(dates) > 5 else
                       "middle", rotate=-45 if len(dates) > 5 else None))
    for number, (side, points) in enumerate(series.items()):
        _polyline(sheet, [None if v is None else (at(i, v), f"{side} {name} {dates[i]}: {v}")
                          for i, v in enumerate(points)], number)
        shown = [f"{dates[i]} {v}" for i, v in enumerate(points) if v is not None]
        sheet.say(f"{side} {name}: " + (", ".join(shown) or "not recorded") + ".")
    sheet.y = base + (52 if len(dates) > 5 else 24)


Point = tuple[tuple[float, float], str] | None  # where a value is drawn, and what it says


def _polyline(sheet: Sheet, points: list[Point], number: int) -> None:
    """A side's line between its neighbouring points, broken where a CG Date has none
    (dashed for the second side, so colour is not all that tells them apart), and a marker
    at each point: a circle, or a square for the second side."""
    series = SERIES[number % len(SERIES)]
    for one, two in itertools.pairwise(points):
        if one is not None and two is not None:
            (x1, y1), (x2, y2) = one[0], two[0]
            sheet.add(rule(x1, y1, x2, y2, tone=series, width=2.5,
                           dash="6 4" if number % 2 else None))
    for point in points:
        if point is not None:
            (x, y), label = point
            sheet.add(marker(x, y, series, label, square=bool(number % 2)))


HIST_HEIGHT = 110


def dice_chart(stats: Statistics) -> str:
    """Histograms: each side's dr and DR as rolled, against fair dice, each with its
    chi-square figure in the caption."""
    sheet = Sheet()
    sheet.note("Bars: the dice as rolled (the count under each face). Marks: what fair "
               "dice would give. Counted: every roll whose dice this reader may see "
               "(another side's secret rolls once revealed).")
    for side in stats.sides:
        dice = stats.dice[side]
        sheet.heading(f"{side} dice")
        for dist in (dice.dr, dice.DR):
            _histogram(sheet, side, dist)
    return sheet.svg("Dice statistics", "Each side's dr and DR against fair dice, with "
                     "Pearson's chi-square: " + "; ".join(
                         f"{side} {d.kind} {caption(d)}" for side in stats.sides
                         for d in (stats.dice[side].dr, stats.dice[side].DR)), "dice")


def caption(dist: Distribution) -> str:
    """The chi-square figure as a caption says it."""
    if dist.chi2 is None or dist.p_value is None:
        return f"no {dist.kind} this reader may see yet"
    p = "p < 0.001" if dist.p_value < 0.001 else f"p = {dist.p_value:.3f}"
    return f"{dist.rolls} {dist.kind}: χ² = {dist.chi2:.2f}, {dist.df} df, {p}"


def _histogram(sheet: Sheet, side: str, dist: Distribution) -> None:
    """Bars of the counts rolled per face, a mark at fair dice's expected count."""
    if not dist.rolls:
        sheet.note(caption(dist), tone="ink")
        return
    sheet.y += 10
    top = max([*dist.observed, *dist.expected, 1.0])
    base = sheet.y + 16 + HIST_HEIGHT
    slot = (WIDTH - PLOT_LEFT) / len(dist.faces)
    parts = [f'<g class="rc-hist" data-side="{esc(side)}" data-kind="{dist.kind}">']
    for index, (face, seen, fair) in enumerate(zip(dist.faces, dist.observed, dist.expected,
                                                   strict=True)):
        x, height = PLOT_LEFT + slot * index, HIST_HEIGHT * seen / top
        parts += [bar(x + 3, base - height, slot - 6, height, "s0",
                      f"{side} {dist.kind} {face}: {seen} rolled, {fair:.1f} expected"),
                  *_mark(x + 1, x + slot - 1, base - HIST_HEIGHT * fair / top),
                  text(x + slot / 2, base + 16, str(face), size=14, anchor="middle",
                       bold=True),
                  text(x + slot / 2, base + 32, str(seen), size=13, anchor="middle",
                       tone="muted")]
    sheet.add(*parts, "</g>", rule(PLOT_LEFT, base, WIDTH, base, tone="muted"),
              text(0, sheet.y + 12, dist.kind, bold=True),
              text(PLOT_LEFT - 4, base + 16, "face", size=12, tone="muted", anchor="end"),
              text(PLOT_LEFT - 4, base + 32, "rolled", size=12, tone="muted", anchor="end"))
    sheet.y = base + 34
    sheet.note(caption(dist), tone="ink")
    if dist.sparse:
        sheet.note("Few rolls: an expected count is under 5, so the figure is rough.")
    sheet.say(f"{side} {dist.kind}: " + ", ".join(
        f"{face} rolled {seen} (expected {fair:.1f})"
        for face, seen, fair in zip(dist.faces, dist.observed, dist.expected, strict=True))
        + f". {caption(dist)}.")


def _mark(x1: float, x2: float, y: float) -> tuple[str, str]:
    """An expected count's mark: an ink line on a halo of the ground, so it shows on a bar
    as well as off one."""
    return rule(x1, y, x2, y, tone="bg", width=6), rule(x1, y, x2, y, tone="ink", width=2.5)


CHARTS: dict[str, Callable[[Statistics], str]] = {
    "cpp": cpp_chart, "cvp": cvp_chart, "ratings": ratings_chart, "dice": dice_chart}
