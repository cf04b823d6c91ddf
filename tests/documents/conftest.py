"""The registry tests' app and callers (one app per test module), for the tests of documents over real resources."""

from tests.registry.conftest import api, home, module_settings, other, reader

__all__ = ["api", "home", "module_settings", "other", "reader"]
