"""SIP over WebSocket for browser clients: the codec, the transport, digest authentication, dialog
subscriptions, registrations, the INVITEs that ring them and those that place calls."""

from .clients import LiveClients
from .dialling import Dialling
from .directory import Directory
from .endpoint import ROUTES
from .hub import SipHub
from .invites import Invites
from .listener import listening

__all__ = ["ROUTES", "Dialling", "Directory", "Invites", "LiveClients", "SipHub", "listening"]
