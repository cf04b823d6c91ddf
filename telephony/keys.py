"""Typed application keys: everything the handlers share lives on the app under one of these."""

from __future__ import annotations

from aiohttp import web

from .clock import Clock
from .collections.cache import PageCache
from .config import Settings
from .documents.reader import Reader
from .eventlog import EventLog
from .scheduler import Scheduler

SETTINGS = web.AppKey("settings", Settings)
CLOCK = web.AppKey("clock", Clock)
EVENT_LOG = web.AppKey("event_log", EventLog)
READER = web.AppKey("reader", Reader)
SCHEDULER = web.AppKey("scheduler", Scheduler)
PAGE_CACHE = web.AppKey("page_cache", PageCache)
CONTROL_KEY_DIGEST = web.AppKey("control_key_digest", bytes)

REQUEST_ID = web.RequestKey("request_id", str)
API_VERSION = web.RequestKey("api_version", str)

__all__ = [
    "API_VERSION",
    "CLOCK",
    "CONTROL_KEY_DIGEST",
    "EVENT_LOG",
    "READER",
    "PAGE_CACHE",
    "REQUEST_ID",
    "SCHEDULER",
    "SETTINGS",
]
