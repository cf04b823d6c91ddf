"""The server in a thread of its own, for programs that drive it over HTTP from synchronous code
(the schemathesis tests, the fuzz script, scenario runs, an integrator's test suite)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .app import create_app
from .clock import Clock
from .config import Settings
from .security import Entropy
from .threaded import running


@contextmanager
def serving(settings: Settings, host: str = "127.0.0.1", *, clock: Clock | None = None,
            entropy: Entropy | None = None) -> Iterator[str]:  # fmt: skip
    """Run the app on `host` at a free port while the block runs, on `clock` with `entropy` (real time
    and the system's randomness by default); yields its base URL."""
    with running(create_app(settings, clock=clock, entropy=entropy), host) as (bound_host, port):
        yield f"http://{bound_host}:{port}"
