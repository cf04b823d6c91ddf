"""The calls module: the call engine, live calls and the floor queues are served on."""

from .floor import QueueRecords
from .live import LiveCalls, live_call
from .parties import NO_CLIENTS

__all__ = ["NO_CLIENTS", "LiveCalls", "QueueRecords", "live_call"]
