"""SIP over WebSocket for browser clients: the codec, the transport, digest authentication, dialog
subscriptions, registrations and the INVITEs that ring them."""

from .clients import LiveClients
from .directory import Directory
from .endpoint import ROUTES
from .hub import SipHub
from .invites import Invites
from .listener import listening

__all__ = ["ROUTES", "Directory", "Invites", "LiveClients", "SipHub", "listening"]
