"""The event stream: the log's call, SMS and webhook delivery events as server-sent events
(`GET /_telephony/events/stream`), and its machinery, which the dashboard's live pages use too."""

from .event_stream import ROUTES, Streams, View, streamed
from .messages import Message, Messages

__all__ = ["ROUTES", "Message", "Messages", "Streams", "View", "streamed"]
