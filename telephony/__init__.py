"""telephony: a self-hosted, event-sourced server speaking a cloud telephony platform's REST API."""

from .app import create_app
from .config import Settings, load_settings

__all__ = ["Settings", "create_app", "load_settings"]
