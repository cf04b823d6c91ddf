"""WebRTC media for the calls that reach a real phone: the server's side of the peer connection,
what it plays for the far end, and what it hears."""

from .calls import Leg, MediaCalls
from .session import MediaSession

__all__ = ["Leg", "MediaCalls", "MediaSession"]
