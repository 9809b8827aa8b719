"""The folds of the reports between the sides (casualties and Control a side reports, the
other side confirms or disputes, the director settles): each report's row and how it was
answered, public as casualties and control are (a casualty's RG line never: it is sealed
in its own record, CasualtyLineReported, which no row reads)."""

from __future__ import annotations

from domain.campaign.reports import describe
from projections.rows import REPORT, Fold, Record, Rows, load_meta


def _key(report: int) -> str:
    return f"{report:06d}"


def fold_casualty_reported(rows: Rows, record: Record) -> None:
    """A side reported a unit it lost (A26.2)."""
    data = record["data"]
    _opened(rows, record, {"kind": "casualty", "side": data["side"],
                           "fields": {"unit": data["unit"], "cvp": data["cvp"]}})


def fold_control_reported(rows: Rows, record: Record) -> None:
    """A side reported that it Controls a Location."""
    data = record["data"]
    _opened(rows, record, {"kind": "control", "side": str(data["side"]),
                           "fields": {"location": data["location"], "kind": data["kind"]}})


def _opened(rows: Rows, record: Record, entry: dict[str, object]) -> None:
    report = record["data"]["report"]
    rows.put(REPORT, _key(report), record["version"], {
        "report": report, "kind": entry["kind"], "by": entry["side"],
        "what": describe(entry), "cg_date": load_meta(rows)["cg_date"],
        "status": "awaiting", "answered_by": None, "reason": None,
        "version": record["version"], "answered_at": None})


def fold_report_answered(status: str) -> Fold:
    """A report confirmed, disputed or withdrawn: by the other side, its own, or the
    director (`side` None); a withdrawal by the director is a rejection."""
    def handle(rows: Rows, record: Record) -> None:
        data = record["data"]
        row = rows.get(REPORT, _key(data["report"]))
        if row is None:  # reported before this fold kept reports: the log has it
            return
        who = data["side"] or "director"
        row.update(status="rejected" if status == "withdrawn" and who == "director"
                   else status, answered_by=who, reason=data.get("reason"),
                   answered_at=record["version"])
        rows.put(REPORT, _key(data["report"]), row["version"], row)
    return handle
