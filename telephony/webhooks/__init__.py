"""Webhooks: signed HTTPS delivery of call and SMS events, with retries and inspection."""

from .bodies import CHANGES, Made, call_events, inbound_sms
from .configuration import KIND, WebhookCreate, WebhookPatch
from .configuration import shown as webhook_shown
from .deliveries import CLAIMING, FEEDS, PendingDeliveries
from .dispatcher import Dispatcher
from .sender import DeliveryFaults, Sender
from .service import Webhooks
from .urls import allowed as allowed_url

__all__ = ["CHANGES", "CLAIMING", "FEEDS", "KIND", "DeliveryFaults", "Dispatcher", "Made", "PendingDeliveries",
           "Sender", "WebhookCreate", "WebhookPatch", "Webhooks", "allowed_url", "call_events", "inbound_sms",
           "webhook_shown"]  # fmt: skip
