"""Fixtures of the dashboard tests: the webhook tests' (a receiver the server trusts, a root user)."""

from tests.webhooks.conftest import ca, disable_after, receiver, root, settings, webhook_settings

__all__ = ["ca", "disable_after", "receiver", "root", "settings", "webhook_settings"]
