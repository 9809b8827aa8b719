"""The Campaign aggregate and its parts (README, 'How the code is laid out')."""

from domain.campaign.access import token_hash
from domain.campaign.aggregate import HANDLERS, Campaign, campaign_id, handles
from domain.campaign.events import EVENTS, CampaignEvent

__all__ = ["EVENTS", "HANDLERS", "Campaign", "CampaignEvent", "campaign_id", "handles",
           "token_hash"]
