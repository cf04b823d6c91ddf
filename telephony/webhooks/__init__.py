"""Webhooks: signed HTTPS delivery of call and SMS events, with retries, inspection and a dashboard."""

from .configuration import KIND
from .deliveries import CLAIMING, FEEDS, PendingDeliveries
from .dispatcher import Dispatcher
from .sender import Sender
from .service import Webhooks

__all__ = ["CLAIMING", "FEEDS", "KIND", "Dispatcher", "PendingDeliveries", "Sender", "Webhooks"]
