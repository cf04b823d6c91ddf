"""Settings module, call flow: IVRs, the menus that send a caller on by the key it presses.

As in `callflow`, a request names a destination type as text; the resource stores its integer code.
"""

import msgspec

from ..types import E164, Body, Name, NonNegative, PositiveId, Resource
from .callflow import Language, Sounds, TargetType


class _IvrKeys(msgspec.Struct, kw_only=True):
    """What each key does, and the sounds of keys one to nine (the spec lists no zero_sounds). An action
    names a destination as `<final_dst_type letter>:<id>`: `U:1000002`, `V:1000002`, `R:3`, `I:2`, `H`."""

    zero: str | None = None
    """What key zero does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    one: str | None = None
    """What key one does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    two: str | None = None
    """What key two does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    three: str | None = None
    """What key three does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    four: str | None = None
    """What key four does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    five: str | None = None
    """What key five does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    six: str | None = None
    """What key six does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    seven: str | None = None
    """What key seven does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    eight: str | None = None
    """What key eight does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    nine: str | None = None
    """What key nine does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    star: str | None = None
    """What key star does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    hash: str | None = None
    """What key hash does: a destination `<final_dst_type letter>:<id>` (`U:1000002`, `I:2`, `H`)."""
    one_sounds: str | None = None
    """The sound played when key one is pressed."""
    two_sounds: str | None = None
    """The sound played when key two is pressed."""
    three_sounds: str | None = None
    """The sound played when key three is pressed."""
    four_sounds: str | None = None
    """The sound played when key four is pressed."""
    five_sounds: str | None = None
    """The sound played when key five is pressed."""
    six_sounds: str | None = None
    """The sound played when key six is pressed."""
    seven_sounds: str | None = None
    """The sound played when key seven is pressed."""
    eight_sounds: str | None = None
    """The sound played when key eight is pressed."""
    nine_sounds: str | None = None
    """The sound played when key nine is pressed."""


class Ivr(Resource, _IvrKeys):
    """`post_sounds` is a string in the spec's table but an array when POSTed; either decodes."""

    id: int = 0
    """The IVR's id."""
    name: str | None = None
    """The IVR's name."""
    number: int | None = None
    """The IVR's extension."""
    language: int | None = None
    """The language of its prompts (the `language` dictionary)."""
    ring_time: int | None = None
    """Seconds it rings before it answers."""
    timeout: int | None = None
    """Seconds it waits for a key after its menu."""
    repeats: int | None = None
    """How many times the menu is played when no key is pressed."""
    ext_dialing: bool | None = None
    """Whether a caller may dial an extension."""
    random_choice: bool | None = None
    """Whether a caller who presses no key is sent to a random destination."""
    random_dst: str | None = None
    """The destinations a random choice picks from."""
    final_dst_id: int | None = None
    """Where a caller who presses no key goes."""
    final_dst_type: int | None = None
    """The kind of the final destination (a code of the `target_type` dictionary: user, voicemail, ring group, IVR,
    queue, conference, hang-up)."""
    sounds: str | None = None
    """The menu's prompt."""
    post_sounds: Sounds | None = None
    """The sounds played after the menu."""
    ddis: list[str] | None = None
    """The numbers whose calls the IVR answers (as ring groups list theirs)."""


class IvrCreate(Body, _IvrKeys):
    """The spec's POST fields, plus the key actions and sounds, which PATCH could not set otherwise."""

    name: Name
    number: PositiveId | None = None
    ring_time: NonNegative | None = None
    timeout: NonNegative | None = None
    repeats: NonNegative | None = None
    ext_dialing: bool | None = None
    random_choice: bool | None = None
    random_dst: str | None = None
    language: Language | None = None
    final_dst_type: TargetType | None = None
    final_dst_id: int | None = None
    sounds: str | None = None
    post_sounds: Sounds | None = None
    ddis: list[E164] | None = None
