"""`POST /campaigns` documents every field of its body in the OpenAPI schema."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_the_openapi_schema_documents_the_cg_balance_of_a_new_campaign(
        client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    body = schema["components"]["schemas"]["NewCampaign"]["properties"]
    assert "KGP 8.31" in body["balance"]["description"]
