"""The registry tests' app and callers (one app per module), for the list engine's tests over real resources."""

from tests.registry.conftest import api, home, module_settings, other, reader

__all__ = ["api", "home", "module_settings", "other", "reader"]
