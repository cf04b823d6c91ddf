"""Messaging: SMS both ways, website chats and inbound faxes, simulated on the clock."""

from .steps import Pending, Steps

__all__ = ["Pending", "Steps"]
