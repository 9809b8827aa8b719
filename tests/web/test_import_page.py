"""The admin's import in the web client (issue 18 item 5): an export file uploaded from
the admin's page is rebuilt as a campaign (POST /campaigns/import's use case), or refused
naming the version that does not verify; only the admin's session imports, from this
site, within the import's own body limit."""

from __future__ import annotations

import html as markup
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.settings import Settings
from tests.helpers.http import ADMIN, auth
from tests.helpers.web import secret_step, text_of


@pytest.fixture
def other(other_database_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """A second service, on an empty database of the other kind: where an export moves."""
    conf = Settings(database_url=other_database_url, module_dir=tmp_path / "other" / "m",
                    signing_key_file=tmp_path / "other" / "key", admin_token=ADMIN)
    with TestClient(create_app(conf)) as c:
        yield c


def exported(client: TestClient) -> tuple[dict[str, Any], bytes]:
    """A campaign at 3.618 and the director's export of it."""
    campaign = secret_step(client)
    answer = client.get(f"/campaigns/{campaign['id']}/export",
                        headers=auth(campaign["tokens"]["director"]))
    assert answer.status_code == 200
    return campaign, answer.content


def upload(client: TestClient, body: bytes, **headers: str) -> Any:
    """The import form posted with the admin's session and its CSRF token."""
    client.post("/login", data={"token": ADMIN})
    page = client.get("/admin/import")
    assert page.status_code == 200 and 'name="export" type="file"' in page.text
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    return client.post("/admin/import", data={"csrf": csrf}, headers=headers,
                       files={"export": ("campaign.jsonl", body, "application/x-ndjson")})


def test_the_admin_uploads_an_export_and_sees_the_campaign_rebuilt(
        client: TestClient, other: TestClient) -> None:
    campaign, body = exported(client)
    client.post("/login", data={"token": ADMIN})
    assert 'href="/admin/import"' in client.get("/admin").text  # the way to the import
    answer = upload(other, body)
    assert answer.status_code == 201, answer.text
    text = text_of(markup.unescape(answer.text))
    events = sum(1 for line in body.splitlines() if '"data"' in line.decode())
    assert "Imported: Ranville" in text and campaign["id"] in text
    assert f"campaign.jsonl: {events} events verified and rebuilt" in text
    assert other.get(f"/campaigns/{campaign['id']}",
                     headers=auth(campaign["tokens"]["director"])).status_code == 200


def test_an_export_tampered_with_is_refused_naming_its_version(
        client: TestClient, other: TestClient) -> None:
    campaign, body = exported(client)
    lines = [json.loads(line) for line in body.splitlines()]
    bad = next(line for line in lines if line.get("type") == "CPPCredited")
    bad["data"]["amount"] += 10
    answer = upload(other, "".join(json.dumps(line) + "\n" for line in lines).encode())
    assert answer.status_code == 422, answer.text
    text = text_of(markup.unescape(answer.text))
    assert f"the export does not verify at version {bad['version']}" in text
    assert "Nothing was imported from campaign.jsonl" in text
    assert other.get(f"/campaigns/{campaign['id']}",
                     headers=auth(campaign["tokens"]["director"])).status_code in (401, 404)


def test_only_the_admins_session_imports_and_only_from_this_site(
        client: TestClient, other: TestClient) -> None:
    campaign, body = exported(client)
    client.post("/login", data={"token": campaign["tokens"]["director"]})
    assert client.get("/admin/import", follow_redirects=False).status_code == 303
    refused = client.post("/admin/import", data={"csrf": "x"}, follow_redirects=False,
                          files={"export": ("c.jsonl", body, "application/x-ndjson")})
    assert refused.status_code == 303 and refused.headers["location"] == "/"
    cross = upload(other, body, **{"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403 and "posted from another site" in markup.unescape(
        cross.text)
    assert other.get(f"/campaigns/{campaign['id']}",
                     headers=auth(campaign["tokens"]["director"])).status_code in (401, 404)


def test_an_upload_over_the_imports_limit_is_refused_unread(settings: Settings) -> None:
    conf = settings.model_copy(update={"admin_token": ADMIN, "max_body_bytes": 1024,
                                       "max_import_bytes": 4096})
    with TestClient(create_app(conf)) as small:
        within = upload(small, b"x" * 2048)  # over the body limit, within the import's
        assert within.status_code == 422
        assert upload(small, b"x" * 8192).status_code == 413
