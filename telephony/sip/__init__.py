"""SIP over WebSocket for browser clients: the codec, the transport, digest authentication, dialog
subscriptions and registrations."""

from .directory import Directory
from .endpoint import ROUTES
from .hub import SipHub

__all__ = ["ROUTES", "Directory", "SipHub"]
