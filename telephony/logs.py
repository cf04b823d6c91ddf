"""Logging: every line carries the request id; text or JSON lines as `[log] format` says."""

from __future__ import annotations

import contextvars
import json
import logging
import re
from datetime import UTC, datetime

from aiohttp.abc import AbstractAccessLogger
from aiohttp.web import BaseRequest, StreamResponse

from .output import SAID, Output, QueuedHandler

ACCESS_LOGGER = "aiohttp.access"
"""aiohttp's logger of access lines, which `AccessLogger` writes to."""
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_SECRET_SEGMENT = re.compile(r"(?<=/)[0-9a-f]{40}(?=/|$)")
"""A path segment shaped like a token or API key (`DELETE /apitokens/{token}`)."""


def loggable_path(path: str) -> str:
    """The path with any token-shaped segment masked."""
    return _SECRET_SEGMENT.sub("[redacted]", path)


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "message": record.getMessage(),
        }
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line)


def configure(fmt: str = "text", level: str = "INFO", access: bool = False) -> None:
    """Log lines to standard error: the server's own (`telephony.*`) from `level`, every library's
    (aiohttp, APScheduler, ...) warnings and errors only, and one access line a request when `access`;
    and the lines `output.say` says to standard output. Both are written by a thread of their own
    (`output.Output`), so a stream that does not take them never stops the event loop."""
    close()
    handler = QueuedHandler(Output())
    handler.addFilter(_RequestIdFilter())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("telephony").setLevel(level)
    logging.getLogger(ACCESS_LOGGER).setLevel(logging.INFO if access else logging.WARNING)
    logging.getLogger(SAID).setLevel(logging.INFO)


def close(timeout: float = 2.0) -> None:
    """Write what the configured output holds (for at most `timeout` seconds) and stop it."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, QueuedHandler):
            handler.output.close(timeout)


class AccessLogger(AbstractAccessLogger):
    """An access line a request: method, path (no query: it may hold filters but never secrets), status."""

    def log(self, request: BaseRequest, response: StreamResponse, time: float) -> None:
        fields = {
            "remote": request.remote,
            "method": request.method,
            "path": loggable_path(request.path),
            "status": response.status,
            "bytes": response.body_length,
            "duration_ms": round(time * 1000, 2),
        }
        self.logger.info(
            f"{request.method} {fields['path']} {response.status} {fields['duration_ms']}ms",
            extra={"request_id": response.headers.get("X-Request-Id", "-"), "fields": fields},
        )

    @property
    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)
