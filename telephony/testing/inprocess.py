"""The settings of a server run in-process for a test suite or a scenario: a data dir of its own, a
control key of the run's, the run's seed (for the simulator; the entropy and the reproducible clock
are the app's, `Entropy(seed)` and `Clock.reproducible(start)`)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from ..config import Control, Settings, Simulator, Storage

replace = msgspec.structs.replace


def settings_for(base: Settings, data_dir: Path, seed: int, control_key: str, *, simulator: Simulator | None = None,
                 ca_file: str | None = None) -> Settings:  # fmt: skip
    """`base` on `data_dir` with `control_key`, its simulator (or `simulator`) seeded by `seed`, and
    trusting `ca_file` for webhook receivers when given."""
    settings = replace(base, storage=Storage(data_dir=str(data_dir)), control=Control(key=control_key),
                       simulator=replace(simulator or base.simulator, seed=seed))  # fmt: skip
    if ca_file is not None:
        settings = replace(settings, webhooks=replace(settings.webhooks, ca_file=ca_file))
    return settings
