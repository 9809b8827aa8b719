"""Terminal tables read like the paper forms."""

from __future__ import annotations

from api.render import dice_text, format_table, guide_text


def test_a_dr_shows_its_die_and_a_dr_keeps_coloured_and_white_apart() -> None:
    assert dice_text([4]) == "4"
    assert dice_text([6, 1]) == "6c+1w"


def test_columns_are_padded_to_their_widest_cell() -> None:
    table = format_table(["CG Date", "side"], [["18AM", "British"], ["18PM", None]])
    assert table.splitlines() == ["CG Date  side", "-------  -------", "18AM     British",
                                  "18PM"]


def test_the_guide_reads_as_a_player_needs_it() -> None:
    recon = {"table": "3.620", "rule": "3.620", "title": "Reconnaissance dr", "roll": "dr",
             "subject": "step", "secret": False, "drm": [], "cpp": 1,
             "claims": [{"id": "3.620-beneficial", "value": 5, "count": False, "cpp": 1,
                         "reason": "beneficial Recon drm", "rule": "3.620"}]}
    chit = {"select": "initiative", "rule": "3.6212", "chosen": False,
            "chits": ["attack", "idle"], "waiting_for": ["British"]}
    answer = {"cg_date": "15AM", "step": "3.620", "title": "Purchasing Reconnaissance",
              "phase": "reph", "sides": {"Axis": {"due": [], "optional": [recon],
                                                  "chit": chit, "done": False,
                                                  "on_leaving": []}}}
    assert guide_text(answer).splitlines() == [
        "CG Date 15AM, RePh step 3.620 Purchasing Reconnaissance", "Axis",
        "  due: an Initiative chit (3.6212): attack or idle, secret until both sides have "
        "chosen (select_initiative)",
        "  may: 3.620 Reconnaissance dr (costs 1 CPP); may claim 3.620-beneficial (+5 "
        "beneficial Recon drm, 1 CPP more)"]
    in_play = guide_text(answer | {"phase": "scenario", "step": None})
    assert in_play.startswith("CG Date 15AM: the CG Scenario is in play")
