"""The registry tests' module-scoped app and callers, for the tests generated over the whole route table."""

from tests.registry.conftest import api, home, module_settings, other, reader  # noqa: F401
