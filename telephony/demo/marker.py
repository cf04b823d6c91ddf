"""The mark of a demo data dir: `demo.json`, written before the demo's first start opens the dir.

It holds the seed, the ids of the tenant the demo built, and once its history is made, the log's
position and head hash at the end of the history (two demos of one seed have the same). A data dir
holding anything but a finished demo's mark is never written to by `--demo` (`check`).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from ..datadir import DataDirUnusable

MARKER_FILE = "demo.json"


class NotADemoDir(DataDirUnusable):
    """`--demo` on a data dir it may not use: one holding other data, or an unfinished demo."""


@dataclass(frozen=True)
class History:
    """Where the history ended in the log, what it made and how long that took."""

    position: int
    head: str
    """The hash (hex) of the history's last event."""
    made: dict[str, int]
    """What the history made, by kind (`inbound`, `outbound`, `sms`, `fax`, `refused`)."""
    seconds: float


@dataclass(frozen=True)
class Mark:
    seed: int
    customer_id: int = 0
    users: tuple[int, ...] = ()
    history: History | None = None


def read(data_dir: Path) -> Mark | None:
    path = data_dir / MARKER_FILE
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text())
        history = History(**raw["history"]) if raw.get("history") else None
        return Mark(raw["seed"], raw.get("customer_id", 0), tuple(raw.get("users", ())), history)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NotADemoDir(f"{path} is not a demo's mark ({exc}): use another data dir") from None


def write(data_dir: Path, mark: Mark) -> None:
    """Write `mark` whole or not at all (a new file renamed over the old one)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / MARKER_FILE
    part = path.with_suffix(".part")
    part.write_text(json.dumps(asdict(mark), indent=2) + "\n")
    os.replace(part, path)


def check(data_dir: Path, seed: int | None) -> Mark | None:
    """The finished demo of `data_dir`, or None when the dir is missing or empty (a new demo is made
    there). NotADemoDir when it holds anything else, an unfinished demo, or another seed's demo."""
    if not data_dir.exists() or not any(data_dir.iterdir()):
        return None
    mark = read(data_dir)
    if mark is None:
        raise NotADemoDir(f"{data_dir} holds data that is not a demo's; --demo never writes over it: "
                          "give it an empty or new --data-dir")  # fmt: skip
    if mark.history is None:
        raise NotADemoDir(f"the demo in {data_dir} stopped before its history was made: delete the dir "
                          "and start again")  # fmt: skip
    if seed is not None and seed != mark.seed:
        raise NotADemoDir(f"{data_dir} holds the demo of seed {mark.seed}, not {seed}: leave --seed out, or "
                          "give another --data-dir")  # fmt: skip
    return mark
