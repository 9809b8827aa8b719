"""Commands racing on one campaign never lose or duplicate an event."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from domain import commands as cmd
from infra.application import Refit, VersionConflict
from infra.settings import Settings
from tests.story import abtf_campaign, to_reph_step


def test_two_directors_rolling_at_once_lose_nothing(settings: Settings) -> None:
    apps = [Refit(settings.model_copy(update={"aggregate_cache": 0})) for _ in range(2)]
    try:
        campaign = abtf_campaign(apps[0], "Race")
        to_reph_step(apps[0], campaign, "9.610")
        start = apps[0].campaign(campaign).version
        roll = cmd.Roll(table="9.6101", side="German")

        def rolls(app: Refit) -> list[int]:
            return [app.execute(campaign, roll, "director").version for _ in range(15)]

        with ThreadPoolExecutor(2) as pool:
            versions = [v for done in pool.map(rolls, apps) for v in done]
        assert sorted(versions) == list(range(start + 1, start + 31))
        records = list(apps[0].records(campaign))
        keys = [r["data"]["key"] for r in records
                if r["type"] == "DiceRolled" and r["version"] > start]
        assert len(keys) == len(set(keys)) == 30
        assert apps[1].verify(campaign).ok
    finally:
        for app in apps:
            app.close()


def test_a_stale_expected_version_is_a_conflict_and_appends_nothing(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "If-Match")
    moved = refit.execute(campaign, cmd.Advance(), "director", expected_version=1).version
    with pytest.raises(VersionConflict) as refused:
        refit.execute(campaign, cmd.Advance(), "director", expected_version=1)
    assert f"version {moved}, not 1" in refused.value.message
    assert refit.campaign(campaign).version == moved


def test_retries_back_off_further_each_time_within_a_quarter_second() -> None:
    from infra.application import backoff

    ceilings = [max(backoff(attempt) for _ in range(300)) for attempt in (1, 4, 12)]
    assert ceilings[0] <= 0.002 < ceilings[1] <= 0.016 < ceilings[2] <= 0.25
