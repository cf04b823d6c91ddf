"""Webhooks: signed HTTPS delivery of call and SMS events, with retries, inspection and a dashboard."""

from .bodies import CHANGES, SMS_CREATED, Made, call_events, inbound_sms
from .configuration import KIND
from .deliveries import ATTEMPTED, CLAIMING, FEEDS, QUEUED, PendingDeliveries
from .dispatcher import Dispatcher
from .sender import DeliveryFaults, Sender
from .service import Webhooks
from .urls import allowed as allowed_url

__all__ = ["ATTEMPTED", "CHANGES", "CLAIMING", "FEEDS", "KIND", "QUEUED", "SMS_CREATED", "DeliveryFaults", "Dispatcher",
           "Made", "PendingDeliveries", "Sender", "Webhooks", "allowed_url", "call_events", "inbound_sms"]  # fmt: skip
