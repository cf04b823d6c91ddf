"""Fixtures of the plugin, scenario and listener tests: the webhook tests' (the call tests' simulator,
whose destinations behave by number prefix; an HTTPS receiver; the bootstrap customer's root user)."""

from __future__ import annotations

from tests.webhooks.conftest import ca, disable_after, receiver, root, settings, webhook_settings

__all__ = ["ca", "disable_after", "receiver", "root", "settings", "webhook_settings"]
