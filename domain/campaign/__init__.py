"""The Campaign aggregate and its parts (README, 'How the code is laid out')."""

from domain.campaign import rulings  # its events are registered on import
from domain.campaign.access import token_hash
from domain.campaign.aggregate import Campaign, campaign_id
from domain.campaign.events import EVENTS, CampaignEvent
from domain.campaign.handlers import HANDLERS, handles

__all__ = ["EVENTS", "HANDLERS", "Campaign", "CampaignEvent", "campaign_id", "handles",
           "rulings", "token_hash"]
