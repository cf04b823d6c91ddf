"""Debian's Chromium for the browser tests: found, or installed by `scripts/install-chromium` (as root,
with apt-get); a test skips with the reason only when no browser can be had. The tests' screenshots
go to `screenshots/` beside them (`shot`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

INSTALL = Path(__file__).resolve().parents[2] / "scripts" / "install-chromium"
SHOTS = Path(__file__).resolve().parent / "screenshots"
"""Where the browser tests write their screenshots (git-ignored)."""
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
"""Chromium on a machine without a display or a network beyond the test's own."""


def chromium() -> str:
    """The browser's path; the test skips, saying why, when it cannot be installed."""
    found = subprocess.run([str(INSTALL)], capture_output=True, text=True, timeout=900, check=False)
    if found.returncode != 0:
        pytest.skip(f"no Chromium: {found.stderr.strip()[-300:]}")
    return found.stdout.strip().splitlines()[-1]


def shot(page, name: str) -> Path:
    """A screenshot of the whole page, `screenshots/<name>.png`; its path is printed."""
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path
