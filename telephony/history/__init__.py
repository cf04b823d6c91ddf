"""The unified history of calls, SMS, faxes and chats, and simulated inbound faxes."""

from .conversations import FEEDS, conversation

__all__ = ["FEEDS", "conversation"]
