"""The stylesheets' colours meet WCAG 2.2's 3:1 for what marks a control (1.4.11) and a
focus indicator (2.4.13's contrast), light and dark: read from the CSS custom properties
and the rules that use them, so a colour changed to a fainter one fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "api" / "web" / "static"
REFIT, FORMS = ((STATIC / name).read_text() for name in ("refit.css", "forms.css"))
LEAST = 3.0
CONTROLS = re.compile(r"\b(input|select|textarea|button\.quiet)\b")


def properties(block: str) -> dict[str, str]:
    """The custom properties a block sets: name -> colour."""
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", block))


def schemes() -> dict[str, dict[str, str]]:
    """Each colour scheme's properties: light, and dark over light."""
    light = properties(REFIT.split("@media (prefers-color-scheme: dark)")[0])
    dark = re.search(r"@media \(prefers-color-scheme: dark\)\s*\{\s*:root\s*\{([^}]*)\}",
                     REFIT)
    assert dark is not None, "refit.css has no dark scheme"
    return {"light": light, "dark": light | properties(dark.group(1))}


def luminance(colour: str) -> float:
    """WCAG's relative luminance of a #rrggbb colour."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, two: str) -> float:
    """WCAG's contrast ratio of two colours."""
    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rules(css: str) -> list[tuple[str, str]]:
    """Each rule's selector and body (an @media's rules as its own)."""
    flat = re.sub(r"@media[^{]*\{", "", re.sub(r"/\*.*?\*/", "", css, flags=re.S))
    return [(s.strip(), b) for s, b in re.findall(r"([^{}]+)\{([^{}]*)\}", flat)]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_form_controls_border_and_the_focus_ring_stand_out_from_every_ground(
        scheme: str) -> None:
    colours = schemes()[scheme]
    for ground in ("bg", "panel"):
        assert contrast(colours["field"], colours[ground]) >= LEAST, (scheme, ground)
    for ground in ("bg", "panel", "accent-soft"):  # the focus ring is the accent
        assert contrast(colours["accent"], colours[ground]) >= LEAST, (scheme, ground)


def test_every_form_controls_border_is_the_field_colour_not_the_faint_line() -> None:
    bordered = [(selector, body) for css in (REFIT, FORMS) for selector, body in rules(css)
                if CONTROLS.search(selector) and "border" in body]
    assert len(bordered) >= 4
    for selector, body in bordered:
        assert "var(--line)" not in body, f"{selector} draws its border in --line"


def test_the_focus_ring_on_the_paper_sheet_is_the_papers_ink() -> None:
    found = rules(FORMS)
    sheet = next(body for selector, body in found if selector == ".sheet")  # on screen
    ring = next(body for selector, body in found if selector == ".sheet :focus-visible")
    paper = re.search(r"background:\s*(#[0-9a-fA-F]{6})", sheet)
    ink = re.search(r"outline-color:\s*(#[0-9a-fA-F]{6})", ring)
    assert paper is not None and ink is not None
    assert contrast(ink.group(1), paper.group(1)) >= LEAST
