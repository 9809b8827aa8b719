"""Commands racing on one campaign never lose or duplicate an event."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from unittest.mock import patch

import pytest

from api.access import caller_on
from domain import commands as cmd
from domain.campaign import Campaign
from domain.errors import CampaignBusy, VersionConflict
from infra.application import Refit
from infra.settings import Settings, backend_of
from tests.helpers.story import abtf_campaign, advance, load_abtf_owner_data, to_reph_step


def wounded(app: Refit, n: int) -> cmd.Roll:
    """A 9.6101 dr for the n-th wounded leader this service reports: a dice key of its own
    (by the service's whole id: two services' ids once agreed in their last six digits)."""
    return cmd.Roll(table="9.6101", side="German", subject=f"unit:L{id(app):x}-{n}")


def test_two_directors_rolling_at_once_lose_nothing(settings: Settings) -> None:
    apps = [Refit(settings.model_copy(update={"aggregate_cache": 0})) for _ in range(2)]
    try:
        campaign = abtf_campaign(apps[0], "Race")
        to_reph_step(apps[0], campaign, "9.610")
        start = apps[0].store.campaign(campaign).version
        def rolls(app: Refit) -> list[int]:
            return [app.commands.execute(campaign, wounded(app, n), "director").version
                    for n in range(15)]

        with ThreadPoolExecutor(2) as pool:
            versions = [v for done in pool.map(rolls, apps) for v in done]
        assert sorted(versions) == list(range(start + 1, start + 31))
        records = list(apps[0].store.records(campaign))
        keys = [r["data"]["key"] for r in records
                if r["type"] == "DiceRolled" and r["version"] > start]
        assert len(keys) == len(set(keys)) == 30
        assert apps[1].reads.verify(campaign).ok
    finally:
        for app in apps:
            app.close()


def test_a_stale_expected_version_is_a_conflict_and_appends_nothing(refit: Refit) -> None:
    campaign = abtf_campaign(refit, "If-Match")
    moved = refit.commands.execute(campaign, cmd.Advance(), "director", expected_version=1).version
    with pytest.raises(VersionConflict) as refused:
        refit.commands.execute(campaign, cmd.Advance(), "director", expected_version=1)
    assert f"version {moved}, not 1" in refused.value.message
    assert refit.store.campaign(campaign).version == moved


def test_retries_back_off_further_each_time_within_a_quarter_second() -> None:
    from infra.commands import backoff

    ceilings = [max(backoff(attempt) for _ in range(300)) for attempt in (1, 4, 12)]
    assert ceilings[0] <= 0.002 < ceilings[1] <= 0.016 < ceilings[2] <= 0.25


@pytest.fixture
def two_services(settings: Settings) -> Iterator[tuple[Refit, Refit]]:
    """Two service processes on one database, each with its own campaign cache."""
    apps = Refit(settings), Refit(settings)
    try:
        yield apps
    finally:
        for app in apps:
            app.close()


def test_two_caching_services_rolling_at_once_lose_nothing(
        two_services: tuple[Refit, Refit]) -> None:
    first, second = two_services
    campaign = abtf_campaign(first, "Cached race")
    to_reph_step(first, campaign, "9.610")
    start = second.store.campaign(campaign).version  # both have it cached now
    def rolls(app: Refit) -> list[int]:
        return [app.commands.execute(campaign, wounded(app, n), "director").version
                for n in range(15)]

    with ThreadPoolExecutor(2) as pool:
        versions = [v for done in pool.map(rolls, two_services) for v in done]
    assert sorted(versions) == list(range(start + 1, start + 31))
    assert second.reads.verify(campaign).ok


def test_a_command_refused_on_a_cached_copy_is_decided_on_the_stored_campaign(
        two_services: tuple[Refit, Refit]) -> None:
    first, second = two_services
    campaign = abtf_campaign(first, "Stale step")
    to_reph_step(first, campaign, "9.616")
    load_abtf_owner_data(second)  # the owner's chart, in both processes
    second.store.campaign(campaign)  # cached at 9.616
    advance(first, campaign)  # the other process moves the RePh on to 9.617
    bought = second.commands.execute(campaign, cmd.PurchaseRG(side="German", rg="I1", kg="K"),
                            "director")
    assert bought.events[0]["type"] == "RGPurchased"


def test_if_match_with_the_stored_version_is_not_refused_by_a_cached_copy(
        two_services: tuple[Refit, Refit]) -> None:
    first, second = two_services
    campaign = abtf_campaign(first, "Stale If-Match")
    second.store.campaign(campaign)
    done = first.commands.execute(campaign, cmd.CreditCPP(side="German", amount=1, reason="x"),
                         "director")
    again = second.commands.execute(campaign, cmd.CreditCPP(side="German", amount=2, reason="y"),
                           "director", expected_version=done.version)
    assert again.version == done.version + 1


def test_a_retry_answered_in_another_process_gets_the_first_answer_not_a_409(
        two_services: tuple[Refit, Refit]) -> None:
    first, second = two_services
    campaign = abtf_campaign(first, "Retry elsewhere")
    at = second.store.campaign(campaign).version  # cached here before the first try lands
    credit = cmd.CreditCPP(side="German", amount=1, reason="x")
    done = first.commands.execute(campaign, credit, "director", expected_version=at,
                         idempotency_key="k1")
    again = second.commands.execute(campaign, credit, "director", expected_version=at,
                           idempotency_key="k1")
    assert (again.version, again.events) == (done.version, done.events)
    with pytest.raises(VersionConflict):
        second.commands.execute(campaign, credit, "director", expected_version=at,
                       idempotency_key="k2")
    assert first.store.campaign(campaign).version == done.version


def test_a_command_waits_for_its_campaigns_turn_no_longer_than_the_turn_wait(
        refit: Refit) -> None:
    campaign = abtf_campaign(refit, "Stuck here")
    head = refit.store.campaign(campaign).version
    credit = cmd.CreditCPP(side="German", amount=1, reason="x")
    # Another thread's command meets one stuck holding the campaign.
    with patch.object(refit.settings, "turn_wait", 0.2), refit.commands.turn(campaign), \
            ThreadPoolExecutor(1) as pool:
        waited = pool.submit(refit.commands.execute, campaign, credit, "director")
        with pytest.raises(CampaignBusy, match=r"held this campaign for 0\.2 s"):
            waited.result(timeout=10)
    assert refit.store.campaign(campaign).version == head
    assert refit.commands.execute(campaign, credit, "director").version == head + 1


def test_a_command_waits_for_another_process_no_longer_than_the_turn_wait(
        settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the cross-process campaign lock is PostgreSQL's advisory lock")
    shared = settings.model_copy(update={"shared_database": True, "turn_wait": 0.2})
    first, second = Refit(shared), Refit(shared)
    try:
        campaign = abtf_campaign(first, "Stuck there")
        head = first.store.campaign(campaign).version
        assert first.commands.store_lock is not None
        credit = cmd.CreditCPP(side="German", amount=1, reason="x")
        # A command stuck in the other process holds the campaign.
        with first.commands.store_lock.hold(campaign), \
                pytest.raises(CampaignBusy, match="another process"):
            second.commands.execute(campaign, credit, "director")
        assert second.store.campaign(campaign).version == head
    finally:
        first.close()
        second.close()


def test_a_token_replaced_in_another_process_opens_nothing_here(
        two_services: tuple[Refit, Refit]) -> None:
    from api.access import caller_of
    from domain.errors import Unauthorized

    first, second = two_services
    created, tokens = first.commands.open_campaign("pbr", "I", "Lost token")
    campaign_id = created.id
    second.store.campaign(campaign_id)  # cached with the old token's hash
    first.commands.replace_token(campaign_id, "Axis", "director")
    with pytest.raises(Unauthorized):
        caller_of(second, campaign_id, tokens.sides["Axis"])

    def authorize(state: Campaign) -> str:
        return caller_on(state, tokens.sides["Axis"]).role
    head = first.store.campaign(campaign_id).version
    for command in (cmd.SelectInitiative(side="Axis", chit="attack"),  # refused when stale
                    cmd.CreditCPP(side="Axis", amount=1, reason="x")):  # would be saved
        with pytest.raises(Unauthorized):
            second.commands.execute(campaign_id, command, "", authorize=authorize)
    assert first.store.campaign(campaign_id).version == head


def test_a_shared_database_reads_the_store_before_each_command(settings: Settings) -> None:
    shared = settings.model_copy(update={"shared_database": True})
    first, second = Refit(shared), Refit(shared)
    try:
        campaign = first.commands.create_campaign("pbr", "I", "Shared", "server").id
        second.store.campaign(campaign)
        first.commands.execute(campaign, cmd.CreditCPP(side="Axis", amount=1, reason="x"),
                               "director")
        with patch.object(second.store, "save", wraps=second.store.save) as save:
            second.commands.execute(campaign, cmd.CreditCPP(side="Axis", amount=2, reason="y"),
                           "director")
        assert save.call_count == 1  # no conflict: it ran on the stored campaign at once
    finally:
        first.close()
        second.close()


def test_services_sharing_postgres_take_turns_instead_of_conflicting(
        settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("the cross-process campaign lock is PostgreSQL's advisory lock")
    shared = settings.model_copy(update={"shared_database": True})
    apps = Refit(shared), Refit(shared)
    try:
        campaign = abtf_campaign(apps[0], "Turns")
        to_reph_step(apps[0], campaign, "9.610")
        def rolls(app: Refit) -> int:
            with patch.object(app.store, "save", wraps=app.store.save) as save:
                for n in range(15):
                    app.commands.execute(campaign, wounded(app, n), "director")
                return save.call_count
        with ThreadPoolExecutor(2) as pool:
            assert sum(pool.map(rolls, apps)) == 30  # not one save refused, retried
        assert apps[1].reads.verify(campaign).ok
    finally:
        for app in apps:
            app.close()


def test_a_save_on_postgres_waits_for_the_events_table_lock(settings: Settings) -> None:
    """Saves commit in the order their notification ids were drawn (infra/recorder_postgres.py)."""
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("SQLite has one writer at a time: there is no table lock to take")
    import psycopg

    from infra.recorder_postgres import LedgerRecorder

    refit = Refit(settings)
    try:
        assert isinstance(refit.store.recorder, LedgerRecorder)
        campaign = abtf_campaign(refit, "Lock")
        schema = settings.database_url.rsplit("schema=", 1)[1]
        # A plain INSERT's lock (ROW EXCLUSIVE) lets another plain insert through; the
        # EXCLUSIVE lock each save takes does not.
        with psycopg.connect(settings.database_url.split("?")[0]) as other, \
                ThreadPoolExecutor(1) as pool:
            other.execute(f'LOCK TABLE "{schema}".refit_events IN ROW EXCLUSIVE MODE')
            saving = pool.submit(refit.commands.execute, campaign,
                                 cmd.CreditCPP(side="British", amount=1, reason="x"),
                                 "director")
            with pytest.raises(TimeoutError):
                saving.result(timeout=0.5)
            other.rollback()
            assert saving.result(timeout=30).version == refit.store.campaign(campaign).version
    finally:
        refit.close()


def test_services_starting_together_on_postgres_make_their_tables_in_turn(
        settings: Settings) -> None:
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("SQLite's tables are made under its one writer lock")
    import threading

    Refit(settings).close()  # the tables exist: each start still replaces the functions
    made = schema_objects(settings)
    assert ("table", "refit_events", "") in made
    assert any(kind == "function" and "LOCK TABLE" in body for kind, _, body in made)
    for _ in range(3):
        ready = threading.Barrier(6)

        def start(together: threading.Barrier) -> None:
            together.wait()
            Refit(settings).close()
        with ThreadPoolExecutor(6) as pool:
            for started in [pool.submit(start, ready) for _ in range(6)]:
                started.result(timeout=60)  # "tuple concurrently updated" would raise here
        assert schema_objects(settings) == made  # each made once, as one start makes it


def schema_objects(settings: Settings) -> list[tuple[str, str, str]]:
    """The tables and functions (with their bodies) in the test's PostgreSQL schema."""
    import psycopg

    schema = settings.database_url.rsplit("schema=", 1)[1]
    with psycopg.connect(settings.database_url.split("?")[0]) as conn:
        rows = conn.execute(
            "SELECT 'table', tablename, '' FROM pg_tables WHERE schemaname = %(s)s "
            "UNION ALL SELECT 'function', p.proname, p.prosrc FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %(s)s "
            "ORDER BY 1, 2, 3", {"s": schema}).fetchall()
    return [(str(kind), str(name), str(body)) for kind, name, body in rows]


def test_a_snapshot_that_fails_neither_fails_nor_repeats_a_saved_command(
        settings: Settings) -> None:
    from eventsourcing.persistence import IntegrityError

    refit = Refit(settings.model_copy(update={"snapshot_interval": 2}))
    try:
        campaign = abtf_campaign(refit, "Snapshots")
        assert refit.store.snapshots is not None
        with patch.object(refit.store.snapshots, "put", side_effect=IntegrityError("kept already")):
            for _ in range(3):
                before = refit.store.campaign(campaign).version
                done = refit.commands.execute(campaign, cmd.CreditCPP(side="British", amount=1,
                                                             reason="x"), "director")
                assert done.version == before + 1 == len(list(refit.store.records(campaign)))
    finally:
        refit.close()


def test_a_campaigns_lock_is_its_schemas_own_and_a_busy_one_answers_503() -> None:
    from api.errors import status_of
    from infra.store_lock import lock_class
    classes = {lock_class(schema) for schema in ("public", "club_a", "club_b")}
    assert len(classes) == 3 and all(-(2 ** 31) <= c < 2 ** 31 for c in classes)
    assert status_of(CampaignBusy("x")) == 503


def test_the_log_on_postgres_reads_as_eventsourcing_reads_it(settings: Settings) -> None:
    """The ledger's own read of the log (binary tuples, infra/recorder_postgres.py) gives
    eventsourcing's notifications, one for one, from any start, to any stop, any limit."""
    if backend_of(settings.database_url) == "sqlite":
        pytest.skip("SQLite's log is read by eventsourcing's own recorder: nothing to compare")
    from eventsourcing.postgres import PostgresApplicationRecorder

    refit = Refit(settings)
    try:
        campaign = abtf_campaign(refit, "Log")
        for amount in (1, 2, 3, 4, 5):
            refit.commands.execute(campaign, cmd.CreditCPP(side="British", amount=amount,
                                                           reason="x"), "director")
        recorder = refit.store.recorder
        head = recorder.max_notification_id() or 0
        assert head > 5
        for start, limit, stop in ((1, 1000, None), (2, 3, None), (3, 1000, head - 1),
                                   (head, 10, None), (head + 1, 10, None), (4, 2, 4)):
            ours = recorder.select_notifications(start, limit, stop)
            theirs = PostgresApplicationRecorder.select_notifications(recorder, start, limit,
                                                                      stop)
            assert ours == theirs and all(type(n.state) is bytes for n in ours)
        assert [n.id for n in recorder.select_notifications(2, 3)] == [2, 3, 4]
    finally:
        refit.close()
