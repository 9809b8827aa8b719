"""The Campaign aggregate and its parts (README, 'How the code is laid out')."""

from domain.campaign import (  # their events are registered on import
    bombardment,
    disputes,
    rulings,
)
from domain.campaign.access import token_hash
from domain.campaign.aggregate import Campaign, campaign_id
from domain.campaign.events import EVENTS, CampaignEvent
from domain.campaign.handlers import HANDLERS, handles
from domain.campaign.retained import retain_units  # its handler registers as it is imported

__all__ = ["EVENTS", "HANDLERS", "Campaign", "CampaignEvent", "bombardment", "campaign_id",
           "disputes", "handles", "retain_units", "rulings", "token_hash"]
