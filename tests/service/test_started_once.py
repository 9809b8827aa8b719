"""A campaign started under an id its caller drew (the new-campaign page's form) starts
once: started again under that id, it is refused (CampaignExists) and nothing is appended,
on either store."""

from __future__ import annotations

from uuid import uuid4

import pytest

from domain.errors import CampaignExists
from infra.application import Refit


def test_a_campaign_started_twice_under_one_id_is_started_once(refit: Refit) -> None:
    ident = uuid4()
    campaign, tokens = refit.commands.open_campaign("pbr", "I", "Ranville", ident=ident)
    assert campaign.id == ident
    version = refit.store.campaign(ident).version

    with pytest.raises(CampaignExists, match=f"campaign {ident} has already been started"):
        refit.commands.open_campaign("pbr", "I", "Ranville again", ident=ident)

    again = refit.store.campaign(ident)
    assert again.version == version and again.name == "Ranville"
    assert again.access.role_of(tokens.director) == "director"  # the first tokens hold
