"""A withdrawal stored before its units were listed by kind (one text, PBr 3.6074) still
reads on the CG Roster and its form, replays, verifies and counts for no 3.60742 limit."""

from __future__ import annotations

from api.forms import roster_csv
from domain.campaign.retained import UnitsWithdrawn
from infra.application import Refit
from tests.helpers.story import do, to_reph_step


def test_a_withdrawal_recorded_as_text_still_reads_and_verifies(refit: Refit) -> None:
    campaign = refit.commands.create_campaign("pbr", "I", "Bénouville", "entered",
                                              start_date="14PM").id  # 3.60742: after 14PM
    to_reph_step(refit, campaign, "3.607")
    state = refit.store.campaign(campaign)
    state._record(UnitsWithdrawn, "director", side="Axis", units="I4, I5",  # as stored then
                  rule="3.60742", retained_off_map=True, cg_date=state.reph.cg_date)
    refit.store.save(state)
    refit.store.forget(campaign)
    cell = refit.reads.roster(campaign)[0].sides["Axis"]
    assert cell.withdrawn == [{"units": "I4, I5", "rule": "3.60742", "retained_off_map": True}]
    assert "I4, I5" in roster_csv(refit.reads.roster(campaign))
    assert refit.store.campaign(campaign).retained.withdrawn("Axis", "3.60742") == {}
    # The text counts for nothing: the limits apply to what is listed from now on.
    do(refit, campaign, {"type": "withdraw_units", "side": "Axis", "rule": "3.60742",
                         "retained_off_map": True, "units": [{"kind": "leader", "count": 3}]})
    assert refit.reads.verify(campaign).ok
