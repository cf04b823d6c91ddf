"""Fixtures of the SIP tests: the call tests' simulator (destinations behave by number prefix) and
the bootstrap customer's root user."""

from __future__ import annotations

from tests.calls.conftest import root, settings

__all__ = ["root", "settings"]
