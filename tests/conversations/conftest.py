"""Fixtures of the conversations tests: the billing tests' tariffs and destinations whose times are known."""

from tests.billing.conftest import enforced, internal_calls_free, root, settings  # noqa: F401  (the fixtures)
