"""No class over 400 lines and no source file over 600, unless its opening comment says
why: a room that grows past that holds several things (README, 'How the code is
laid out')."""

from __future__ import annotations

import ast

from tests.helpers.paths import ROOT

SOURCES = [path for package in ("domain", "projections", "infra", "api")
           for path in sorted((ROOT / package).rglob("*.py"))]
MOST_CLASS, MOST_FILE = 400, 600
REASON = "Long because"  # how an opening docstring says why a file or class may be longer


def test_the_source_tree_is_read() -> None:
    assert len(SOURCES) > 50 and any(p.name == "aggregate.py" for p in SOURCES)


def test_no_class_is_over_400_lines_without_a_reason() -> None:
    long = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and \
                    node.end_lineno - node.lineno + 1 > MOST_CLASS and \
                    REASON not in (ast.get_docstring(node) or ""):
                long.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert long == []


def test_no_source_file_is_over_600_lines_without_a_reason() -> None:
    long = [str(path.relative_to(ROOT)) for path in SOURCES
            if path.read_text(encoding="utf-8").count("\n") > MOST_FILE
            and REASON not in (ast.get_docstring(ast.parse(path.read_text("utf-8"))) or "")]
    assert long == []
