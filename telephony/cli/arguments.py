"""What every command reads from its arguments: its settings (the config file and the options that
override it), its data dir's log, time bounds; and `CliError`, a command that cannot run as asked."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from ..config import Settings, load_settings
from ..eventlog import LOG_FILE, pg_store, store
from ..eventlog.connection import Connection

DEFAULT_CONFIG = "config.toml"
AddCommand = Callable[..., argparse.ArgumentParser]
"""Adds a subcommand that takes the global options too: `add_command(name, help=...)`."""


class CliError(Exception):
    """A command that cannot run as asked: one line on standard error, exit status 2."""


def settings_of(args: argparse.Namespace) -> Settings:
    """The settings of `--config` (or ./config.toml when present), with the command's overrides."""
    path = args.config or (DEFAULT_CONFIG if Path(DEFAULT_CONFIG).exists() else None)
    settings = load_settings(path)
    replace = msgspec.structs.replace
    if getattr(args, "host", None):
        settings = replace(settings, server=replace(settings.server, host=args.host))
    if getattr(args, "port", None) is not None:
        if not 1 <= args.port <= 65535:
            raise CliError(f"--port {args.port} is not a port: give 1 to 65535")
        settings = replace(settings, server=replace(settings.server, port=args.port))
    if getattr(args, "data_dir", None):
        settings = replace(settings, storage=replace(settings.storage, data_dir=args.data_dir))
    return settings


def log_path(settings: Settings) -> Path:
    path = settings.data_dir / LOG_FILE
    if not path.exists():
        raise CliError(f"no event log at {path}")
    return path


def open_log(settings: Settings) -> Connection:
    """The data dir's log, read-only; the PostgreSQL log when `[eventlog] url` names one (read with the
    same functions, see `eventlog.pg_connection`)."""
    if settings.eventlog.url:
        conn: Any = pg_store.connect(settings.eventlog.url)
        return conn
    return store.connect(log_path(settings), readonly=True)


def time_bound(text: str | None, option: str) -> str | None:
    """A UTC time given to `option` as the log stores times; None when not given."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace(" ", "T"))
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise CliError(f"{option} {text!r} is not a time: give YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC unless it "
                       "carries an offset such as +02:00)") from None  # fmt: skip
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
