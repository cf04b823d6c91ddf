"""Code <-> name dictionaries, declared once: they validate input and answer `GET /<resource>/dictionaries`.

A *code* is what a resource stores and returns (an integer, a letter or a word); a *name* is the label
a client may send instead. `to_code` accepts either, names and text codes case-insensitively.

Where a resource field is an integer but the platform speaks letters elsewhere (a queue's
`final_dst_type` against the user's `U`, `V`, …), `renumbered` derives the integer dictionary from
the letter one, so both spellings are accepted and the list is written once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

Code = int | str


def _code(text: str) -> Code:
    return int(text) if text.lstrip("-").isdigit() else text


@dataclass(frozen=True, eq=False)
class Dictionary:
    """An ordered, immutable mapping of codes to names, with lenient lookup of either."""

    name: str
    entries: Mapping[Code, str]
    aliases: Mapping[str, Code] = field(default_factory=dict)
    _lookup: Mapping[str, Code] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        lookup: dict[str, Code] = {}
        spellings = [(key, code) for code, label in self.entries.items() for key in (str(code), label)]
        for key, code in [*spellings, *self.aliases.items()]:
            if lookup.setdefault(key.casefold(), code) != code:
                raise ValueError(f"dictionary {self.name!r}: {key!r} names two codes")
        object.__setattr__(self, "entries", MappingProxyType(dict(self.entries)))
        object.__setattr__(self, "aliases", MappingProxyType(dict(self.aliases)))
        object.__setattr__(self, "_lookup", MappingProxyType(lookup))

    @classmethod
    def parse(cls, name: str, spec: str) -> Dictionary:
        """Entries from `"O:outbound I:inbound"`; a bare word is its own name; integer codes are ints."""
        pairs = (token.partition(":") for token in spec.split())
        return cls(name, {_code(code): label or code for code, _, label in pairs})

    @classmethod
    def numbered(cls, name: str, labels: str | Iterable[str], start: int = 1) -> Dictionary:
        """Integer codes counted from `start`, in the order the names are given."""
        names = labels.split() if isinstance(labels, str) else labels
        entries: dict[Code, str] = dict(enumerate(names, start))
        return cls(name, entries)

    @classmethod
    def renumbered(cls, name: str, source: Dictionary, start: int = 1) -> Dictionary:
        """Integer codes for `source`'s names; `source`'s codes stay accepted as aliases."""
        numbered = list(enumerate(source.entries.items(), start))
        entries: dict[Code, str] = {number: label for number, (_, label) in numbered}
        return cls(name, entries, {str(code): number for number, (code, _) in numbered})

    @property
    def codes(self) -> tuple[Code, ...]:
        return tuple(self.entries)

    def to_code(self, value: object) -> Code:
        """The code for a code or a name; ValueError listing the allowed values otherwise."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(self._not_allowed(value))
        if value in self.entries:
            return value
        code = self._lookup.get(str(value).strip().casefold())
        if code is None:
            raise ValueError(self._not_allowed(value))
        return code

    def to_name(self, value: object) -> str:
        """The name for a code (or a name)."""
        return self.entries[self.to_code(value)]

    def as_wire(self) -> list[dict[str, Code]]:
        """The entries in order, as `{"code": …, "name": …}` objects."""
        return [{"code": code, "name": label} for code, label in self.entries.items()]

    def _not_allowed(self, value: object) -> str:
        allowed = ", ".join(map(self._describe, self.entries))
        return f"{value!r} is not a valid {self.name}; allowed values: {allowed}"

    def _describe(self, code: Code) -> str:
        spellings = [self.entries[code], *(alias for alias, target in self.aliases.items() if target == code)]
        other = [spelling for spelling in spellings if spelling != str(code)]
        return f"{code} ({'/'.join(other)})" if other else str(code)


CDR_TYPE = Dictionary.parse("cdr_type", "O:outbound I:inbound M:missed")
DISPOSITION = Dictionary.parse("disposition", "INITIAL RINGING CONNECTED ON_HOLD VM BUSY FAILED NO_ANSWER")
DESTINATION = Dictionary.parse("destination", "in:inbound out:outbound webcall callmeback")
CONTEXT = Dictionary.parse(
    "context", "PSTN_CALL USER_LOCAL IVR FOLLOW_ME TEST_CALL QUEUE RINGGROUP CONFERENCE VOICEMAIL CALLMEBACK"
)
CALL_STATE = Dictionary.numbered("call_state", "INITIAL ACCEPTED RINGING CONNECTED ON_HOLD HANGUP", start=0)
CALL_DESTINATION = Dictionary.renumbered("call_destination", DESTINATION)
FINAL_DST_TYPE = Dictionary.parse(
    "final_dst_type", "U:user V:voicemail R:ringgroup I:ivr Q:queue C:conference H:hangup"
)
TARGET_TYPE = Dictionary.renumbered("target_type", FINAL_DST_TYPE)
FOLLOW_ME_STRATEGY = Dictionary.parse("fm_strategy", "A:ringall H:hunt M:memoryhunt")
RINGGROUP_STRATEGY = Dictionary.renumbered("ringgroup_strategy", FOLLOW_ME_STRATEGY)
QUEUE_RING_STRATEGY = Dictionary.numbered(
    "queue_ring_strategy", "ringall leastrecent fewestcalls random rrmemory linear"
)
LANGUAGE = Dictionary.numbered("language", "en de es fr it nl pl pt")
CULTURE = Dictionary.numbered("culture", "en-GB en-US de-DE es-ES fr-FR it-IT nl-NL pl-PL pt-PT")
MESSAGE_DIRECTION = Dictionary.parse("message_direction", "in:inbound out:outbound")
ROUTING_DIRECTION = Dictionary.renumbered("routing_direction", MESSAGE_DIRECTION)
ROUTING_ACTION = Dictionary.parse(
    "routing_action", "allow block redirect user voicemail ringgroup ivr queue conference hangup"
)
DDI_STATUS = Dictionary.numbered("ddi_status", "inactive active suspended", start=0)
FAX_STATUS = Dictionary.numbered("fax_status", "queued sending sent received failed")
FAX_TYPE = Dictionary.renumbered("fax_type", MESSAGE_DIRECTION)
SMS_RESULT = Dictionary.parse("sms_result", "QUEUED SENT DELIVERED FAILED RECEIVED")
CHAT_STATE = Dictionary.numbered("chat_state", "waiting active ended missed")
REPORT_FORMAT = Dictionary.numbered("report_format", "pdf csv xlsx")
REPORT = Dictionary.numbered("report", "cdr_summary calls missed_calls")
REPORT_STATUS = Dictionary.numbered("report_status", "active paused finished")
FREQUENCY_TYPE = Dictionary.parse("frequency_type", "daily weekly monthly")
MEDIA_TYPE = Dictionary.parse("media_type", "audio video screenshare")
MEDIA_STATUS = Dictionary.parse("media_status", "INITIAL RINGING CONNECTED HANGUP")
VOICEMESSAGE_FOLDER = Dictionary.numbered("voicemessage_folder", "INBOX Old Work Family Friends Urgent", start=0)
CONTACT_TYPE = Dictionary.numbered("contact_type", "personal shared lead")
TWO_FACTOR_AUTH = Dictionary.parse("two_factor_auth", "D:disabled E:email")
MONITOR_SETTING = Dictionary.parse("monitor", "N:off A:all I:inbound O:outbound")
QUEUE_MONITOR = Dictionary.renumbered("queue_monitor", MONITOR_SETTING, start=0)
MONITOR_TRANSCRIPT = Dictionary.parse("monitor_transcript", "D:disabled Y:enabled")
CALLER_ID_CHOICE = Dictionary.parse("caller_id_choice", "R:remote L:local")
SENTIMENT = Dictionary.parse("sentiment", "-1:negative 0:neutral 1:positive")
CALLMEBACK_POSITION = Dictionary.numbered("callmeback_position", "bottom-right bottom-left top-right top-left")

# fmt: off
DICTIONARIES: Mapping[str, Dictionary] = MappingProxyType({d.name: d for d in (
    CDR_TYPE, DISPOSITION, DESTINATION, CONTEXT, CALL_STATE, CALL_DESTINATION, FINAL_DST_TYPE, TARGET_TYPE,
    FOLLOW_ME_STRATEGY, RINGGROUP_STRATEGY, QUEUE_RING_STRATEGY, LANGUAGE, CULTURE, MESSAGE_DIRECTION,
    ROUTING_DIRECTION, ROUTING_ACTION, DDI_STATUS, FAX_STATUS, FAX_TYPE, SMS_RESULT, CHAT_STATE,
    REPORT_FORMAT, REPORT, REPORT_STATUS, FREQUENCY_TYPE, MEDIA_TYPE, MEDIA_STATUS, VOICEMESSAGE_FOLDER, CONTACT_TYPE,
    TWO_FACTOR_AUTH, MONITOR_SETTING, QUEUE_MONITOR, MONITOR_TRANSCRIPT, CALLER_ID_CHOICE, SENTIMENT,
    CALLMEBACK_POSITION,
)})

_DDI = {"status": "ddi_status", "target_type": "target_type"}
_CALLMEBACK = {"culture": "culture", "position": "callmeback_position"}

# Collection path (as in the URL, without the leading slash) -> {wire field path: dictionary name}.
RESOURCE_DICTIONARIES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "calls": {"state": "call_state", "context": "context", "destination": "call_destination"},
    "cdrs": {"type": "cdr_type", "disposition": "disposition", "destination": "destination",
             "context": "context"},
    "monitors": {"type": "cdr_type", "context": "context", "sentiment": "sentiment"},
    "msdrs": {"type": "media_type"},
    "mediasessions": {"status": "media_status", "type": "media_type"},
    "voicemessages": {"folder": "voicemessage_folder"},
    "chats": {"state": "chat_state"},
    "chatmsgs": {"direction": "message_direction"},
    "sms": {"type": "message_direction", "result": "sms_result"},
    "faxes": {"status": "fax_status", "type": "fax_type"},
    "ddis": _DDI,
    "calltracking/ddis": _DDI,
    "contacts": {"type": "contact_type"},
    "queues": {"language": "language", "ring_strategy": "queue_ring_strategy",
               "final_dst_type": "target_type", "monitor": "queue_monitor"},
    "ringgroups": {"strategy": "ringgroup_strategy", "final_dst_type": "target_type"},
    "ivrs": {"language": "language", "final_dst_type": "target_type"},
    "routingrules": {"direction": "routing_direction", "action": "routing_action", "target_type": "target_type"},
    "users": {"two_factor_auth": "two_factor_auth", "final_dst_type": "final_dst_type",
              "fm_final_dst_type": "final_dst_type", "fm_strategy": "fm_strategy",
              "fm_cli": "caller_id_choice", "transfer_cli": "caller_id_choice", "monitor": "monitor",
              "monitor_transcript": "monitor_transcript"},
    "callmeback/settings": _CALLMEBACK,
    "callmeback/websites": _CALLMEBACK,
    "callmeback/visitors": _CALLMEBACK,
    "callmeback/cdrs": _CALLMEBACK,
    "reportschedules": {"report_id": "report", "format": "report_format", "status": "report_status",
                        "culture": "culture", "frequency.type": "frequency_type"},
})
# fmt: on


def resource_dictionaries(resource: str) -> dict[str, list[dict[str, Code]]]:
    """The body of `GET /<resource>/dictionaries`: each coded field's entries; {} for an unknown resource."""
    fields = RESOURCE_DICTIONARIES.get(resource, {})
    return {path: DICTIONARIES[name].as_wire() for path, name in fields.items()}
