"""Every event type, declared once: a frozen, tagged msgspec Struct per type, a module per capability.

`base` says what an event is and the shape of one to record (`NewEvent`); `catalogue` gathers the
types the log holds (`EVENTS`) and writes and reads them.
"""

from .base import ANY_VERSION, NO_STREAM, Event, NewEvent, data_of, tag_of, tags_of
from .catalogue import EVENTS, RESOURCES, Catalogue, UnreadableEvent, events_of

__all__ = ["ANY_VERSION", "EVENTS", "NO_STREAM", "RESOURCES", "Catalogue", "Event", "NewEvent", "UnreadableEvent",
           "data_of", "events_of", "tag_of", "tags_of"]  # fmt: skip
