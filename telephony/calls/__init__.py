"""The calls module: the call engine, live calls and the floor queues are served on."""

from .floor import QueueRecords
from .live import LiveCalls, live_call

__all__ = ["LiveCalls", "QueueRecords", "live_call"]
