"""What the INVITE path needs of media (the `rtc` room, wired in): an offer for a phone, and its leg.

`Media.offer` gives the leg of an INVITE to the phone of a call's `dst` leg, whose SDP offer the
INVITE carries, or None: the INVITE goes out with the offer of no media (`offer.sdp`). A leg's
`usable` says whether the phone's 200 answer can carry audio; `connect` starts media with it once
the answer is recorded and ACKed; `end` stops it when the leg ends (CANCEL, a failure, BYE either
way, the socket's close).
"""

from __future__ import annotations

from typing import Protocol

from ..domain.calls.call import Call


class MediaLeg(Protocol):
    sdp: bytes

    def usable(self, answer: bytes) -> bool: ...

    async def connect(self, answer: bytes) -> None: ...

    def end(self) -> None: ...


class Media(Protocol):
    async def offer(self, call: Call, host: str) -> MediaLeg | None: ...
