"""An IVR's menu as its caller meets it, as pure rules.

The menu's prompt plays and waits `timeout` seconds for a key; without one it plays again, `repeats`
times in all. A key whose action sends the caller on (or an extension dialled, with `ext_dialing`)
is taken at once. A key that does nothing is an invalid option, as on a real PBX: the menu plays
again from its start, and that counts as one of its plays. After the last play, the caller goes to
the IVR's final destination.

Keys a simulated caller is given ahead (`digits`) are played through the whole menu when the call
reaches the IVR (`heard`); a key pressed while the menu plays (`POST /_telephony/calls/{id}/dtmf`)
that does nothing records `call.menu_replayed` (`replay`), which sets when the menu ends.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..events.calls import CallEvent, MenuReplayed
from .call import Call, Target
from .fold import TRANSITIONS
from .rules import refuse


@dataclass(frozen=True, slots=True)
class Menu:
    """How long each play of the menu waits for a key, and how many plays it has (at least one)."""

    timeout: float
    plays: int


def heard(menu: Menu, keys: Sequence[tuple[str, float]], used: int, action: Callable[[str], Target | None]
          ) -> tuple[Target | None, float, int]:  # fmt: skip
    """Where the caller's keys from `keys[used]` on (each pressed `after` seconds into the play that
    takes it) send it: the target of the first that does something (None: the final destination),
    the seconds from the menu's start until then, and how many keys it took."""
    elapsed = 0.0
    for _ in range(menu.plays):
        if used >= len(keys):
            elapsed += menu.timeout
            continue
        key, after = keys[used]
        used, elapsed = used + 1, elapsed + after
        if (to := action(key)) is not None:
            return to, elapsed, used
    return None, elapsed, used


def replay(call: Call, at: float, menu: Menu, key: str) -> list[CallEvent] | None:
    """A key that does nothing, pressed now: the menu plays again (the play it cut short counts), or
    None when that was its last play and the caller goes to the final destination."""
    if call.state not in TRANSITIONS[MenuReplayed]:
        raise refuse(call, "replay its menu", "digits")
    since = call.menu_since if call.menu_since is not None else call.connected_at
    elapsed = 0.0 if since is None else at - since
    played = call.menu_played + int(elapsed // menu.timeout) + 1
    if played >= menu.plays:
        return None
    return [MenuReplayed(id=call.id, at=at, key=key, played=played, wait=(menu.plays - played) * menu.timeout)]
