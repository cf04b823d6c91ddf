"""Messaging: SMS both ways and website chats, simulated on the clock."""

from .steps import Pending, Steps

__all__ = ["Pending", "Steps"]
