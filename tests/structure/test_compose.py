"""docker-compose keeps what the service makes on first start (admin token, signing key)
on a named volume, so a recreated container finds them instead of making new ones."""

from __future__ import annotations

import yaml

from tests.helpers.paths import ROOT


def test_the_services_working_folder_where_it_keeps_its_secrets_is_a_named_volume() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    refit = compose["services"]["refit"]
    mounts = dict(volume.split(":", 1)[::-1] for volume in refit["volumes"])
    assert refit["working_dir"] in mounts  # PostgreSQL: the token and key go to the cwd
    assert mounts[refit["working_dir"]] in compose["volumes"]


def test_a_second_service_host_shares_the_database_and_keys_and_starts_after_the_first() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    first, second = services["refit"], services["refit-2"]
    assert second["environment"]["REFIT_DATABASE_URL"] == first["environment"][
        "REFIT_DATABASE_URL"]
    assert second["volumes"] == first["volumes"]  # the token and key the first made
    assert second["depends_on"] == {"refit": {"condition": "service_healthy"}}
    assert second["ports"] != first["ports"] and "healthcheck" in first


def test_the_proxy_sends_to_hosts_compose_runs_with_the_configuration_tested_here() -> None:
    import re

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    source, target = services["proxy"]["volumes"][0].split(":")[:2]
    assert (ROOT / source).resolve() == ROOT / "deploy" / "nginx.conf"  # test_reads_host's
    assert target == "/etc/nginx/conf.d/default.conf"
    hosts = set(re.findall(r"server ([\w-]+):8000", (ROOT / source).read_text()))
    assert hosts == {"refit", "refit-2", "refit-reads"} and hosts <= set(services)
    reads = services["refit-reads"]
    assert reads["environment"] == services["refit"]["environment"]
    assert reads["volumes"] == services["refit"]["volumes"]
