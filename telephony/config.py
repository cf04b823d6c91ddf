"""Typed settings: `config.toml`, overridden by `TELEPHONY_<SECTION>_<KEY>` environment variables.

Every key is declared once below, with its default. An unknown section or key, or a value of the
wrong type (a boolean from the environment is one of true/false/1/0/yes/no/on/off), stops the start
with a `ConfigError` naming the key.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec

from .fault_rule import FaultRule

ENV_PREFIX = "TELEPHONY_"
MAX_REGISTRATIONS = 100
"""The most SIP clients a user may have at once (`domain.sip_clients` holds the rule; a test ties the two)."""


class ConfigError(Exception):
    """The configuration cannot be used; the message names the offending key."""


def _check_port(port: int) -> None:
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is not a port: give 1 to 65535")


class Section(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """Base of every config section: unknown keys are errors. Sections repeat `frozen=True` (msgspec
    inherits it; type checkers want it said); derive a changed copy with `msgspec.structs.replace`."""


class Server(Section, frozen=True):
    host: str = "127.0.0.1"
    port: int = 8080
    max_body_bytes: int = 16 * 1024 * 1024
    event_loop: Literal["uvloop", "asyncio"] = "uvloop"

    def __post_init__(self) -> None:
        _check_port(self.port)


class Api(Section, frozen=True):
    service: str = "voipstudio"
    default_page_size: int = 50
    max_page_size: int = 5000
    list_cache_bytes: int = 32 * 1024 * 1024
    inline_read_steps: int = 50_000


class Storage(Section, frozen=True):
    data_dir: str = "./data"


class Bootstrap(Section, frozen=True):
    customer_name: str = "Example Ltd"
    admin_email: str = "admin@example.com"
    admin_password: str = "change-me-now"  # noqa: S105 - documented bootstrap default


class Control(Section, frozen=True):
    key: str = ""


class Log(Section, frozen=True):
    format: Literal["text", "json"] = "text"
    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    access: bool = False


class Cors(Section, frozen=True):
    allowed_origins: list[str] = msgspec.field(default_factory=lambda: ["*"])


class Auth(Section, frozen=True):
    v11_inactivity_seconds: int = 15 * 60
    v12_inactivity_seconds: int = 30 * 60
    max_failures: int = 5
    max_failures_per_address: int = 20
    failure_window_seconds: int = 15 * 60
    lockout_seconds: int = 15 * 60
    reset_token_ttl_seconds: int = 3600
    two_factor_ttl_seconds: int = 600


class Mail(Section, frozen=True):
    host: str = ""
    port: int = 25
    username: str = ""
    password: str = ""
    sender: str = "telephony@localhost"
    starttls: bool = False


class EventLogSettings(Section, frozen=True):
    url: str = ""
    """Empty: the SQLite log in the data dir; `postgresql://...`: the log on PostgreSQL (docs/postgresql.md)."""
    max_batch: int = 512
    synchronous: Literal["FULL", "NORMAL"] = "FULL"

    def __post_init__(self) -> None:
        if self.url and not self.url.startswith(("postgresql://", "postgres://")):
            raise ValueError("url must be empty (SQLite in the data dir) or a postgresql:// URL")


LONGEST_RING = 3_600
LONGEST_TALK = 43_200
"""Bounds of the simulator's times: a ringing and a talk together stay within a record's day."""


class DestinationRule(Section, frozen=True):
    """How the simulator treats numbers that start with `prefix` (with or without `+`)."""

    prefix: str
    outcome: Literal["answer", "busy", "no_answer", "reject", "fail"] | None = None
    ring_seconds: float | None = None
    talk_seconds: float | None = None

    def __post_init__(self) -> None:
        _within(self, {"ring_seconds": LONGEST_RING, "talk_seconds": LONGEST_TALK})


class Simulator(Section, frozen=True):
    seed: int = 1
    default_registrations: int = 1
    own_answer_seconds: float = 1.0
    ring_min_seconds: float = 2.0
    ring_max_seconds: float = 12.0
    no_answer_seconds: float = 30.0
    answer_rate: float = 0.8
    busy_rate: float = 0.1
    reject_rate: float = 0.0
    failure_rate: float = 0.0
    talk_mean_seconds: float = 90.0
    talk_min_seconds: float = 5.0
    talk_max_seconds: float = 3600.0
    webcalls_per_minute: int = 10
    sms_sent_seconds: float = 1.0
    sms_delivered_seconds: float = 3.0
    sms_failure_rate: float = 0.0
    destinations: list[DestinationRule] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0 <= self.default_registrations <= MAX_REGISTRATIONS:
            raise ValueError(f"default_registrations must be 0 to {MAX_REGISTRATIONS}")
        rings = ("own_answer_seconds", "ring_min_seconds", "ring_max_seconds", "no_answer_seconds")
        talks = ("talk_mean_seconds", "talk_min_seconds", "talk_max_seconds")
        rates = ("answer_rate", "busy_rate", "reject_rate", "failure_rate")
        sms = ("sms_sent_seconds", "sms_delivered_seconds")
        _within(self, {**dict.fromkeys(rings, LONGEST_RING), **dict.fromkeys(talks, LONGEST_TALK),
                       **dict.fromkeys(rates, 1), "webcalls_per_minute": 1_000_000,
                       **dict.fromkeys(sms, LONGEST_RING), "sms_failure_rate": 1})  # fmt: skip
        if sum(getattr(self, rate) for rate in rates) > 1:
            raise ValueError("answer_rate, busy_rate, reject_rate and failure_rate must add up to at most 1")
        if self.ring_min_seconds > self.ring_max_seconds or self.talk_min_seconds > self.talk_max_seconds:
            raise ValueError("a minimum must not exceed its maximum")


INCREMENT = r"^[1-9][0-9]{0,3}/[1-9][0-9]{0,3}$"


class Tariff(Section, frozen=True):
    """The price of calls to numbers starting with `prefix` (digits, with or without `+`): `per_minute`,
    billed by `increment` ("first/next" seconds: 60/60 by the minute, 1/1 by the second), at least
    `minimum_charge` for an answered call, plus `connection_fee`; an SMS part costs `sms`."""

    prefix: str = ""
    name: str = ""
    per_minute: float = 0.0
    increment: str = "60/60"
    minimum_charge: float = 0.0
    connection_fee: float = 0.0
    sms: float = 0.0

    def __post_init__(self) -> None:
        if not re.fullmatch(INCREMENT, self.increment):
            raise ValueError(f"increment must be first/next seconds such as 60/60 or 1/1, not {self.increment!r}")
        if not re.fullmatch(r"\+?[0-9]*", self.prefix):
            raise ValueError(f"prefix must be digits, not {self.prefix!r}")
        _within(self, dict.fromkeys(("per_minute", "minimum_charge", "connection_fee", "sms"), 1_000_000))


class Billing(Section, frozen=True):
    currency: str = "EUR"
    enforce_balance: bool = False
    internal_calls_free: bool = True
    default: Tariff = msgspec.field(default_factory=lambda: Tariff(name="Other destinations"))
    tariffs: list[Tariff] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Z]{3}", self.currency):
            raise ValueError(f"currency must be an ISO 4217 code such as EUR, not {self.currency!r}")


class ConfiguredWebhook(Section, frozen=True):
    """A webhook made at start (a demo's receiver): created when its customer has none of its name,
    brought up to date when it has. `secret` (a `whsec_` secret) lets the receiver verify signatures;
    without it one is drawn, which `rotate-secret` shows."""

    name: str
    url: str
    events: list[str] = msgspec.field(default_factory=lambda: ["call.state"])
    customer_id: int = 0
    enabled: bool = True
    secret: str = ""


class Webhooks(Section, frozen=True):
    ca_file: str = ""
    allow_http_loopback: bool = False
    allow_networks: list[str] = msgspec.field(default_factory=list)
    deny_networks: list[str] = msgspec.field(default_factory=list)
    timeout_seconds: float = 10.0
    disable_after: float = 5 * 24 * 3600.0
    in_flight_per_receiver: int = 8
    hooks: list[ConfiguredWebhook] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        _within(self, {"timeout_seconds": 300, "disable_after": 10 * 365 * 86400, "in_flight_per_receiver": 1000})
        if self.in_flight_per_receiver < 1 or self.timeout_seconds <= 0:
            raise ValueError("timeout_seconds and in_flight_per_receiver must be positive")
        for key in ("allow_networks", "deny_networks"):
            for network in getattr(self, key):
                try:
                    ipaddress.ip_network(network, strict=False)
                except ValueError:
                    raise ValueError(f"{key}: {network!r} is not a network such as 10.0.0.0/8 or fd00::/8") from None


class Faults(Section, frozen=True):
    """Fault rules made at start (`fault_rule.FaultRule`), each checked as the API checks it."""

    rules: list[FaultRule] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        for n, rule in enumerate(self.rules):
            for field, message in rule.problems():
                raise ValueError(f"rules[{n}]{'.' + field if field else ''}: {message}")


class Stream(Section, frozen=True):
    heartbeat_seconds: float = 15.0

    def __post_init__(self) -> None:
        if not 0 < self.heartbeat_seconds <= 3600:
            raise ValueError("heartbeat_seconds must be above 0 and at most 3600")


class Sip(Section, frozen=True):
    domain_template: str = "{customer_id}.sip.telephony.local"
    host: str = ""
    port: int = 443
    certificate: str = ""
    private_key: str = ""
    connections_per_user: int = 8
    subscriptions_per_connection: int = 32
    dialogs_per_connection: int = 4
    nonce_seconds: float = 300.0
    max_expires: int = 3600
    max_media_calls: int = 10

    def __post_init__(self) -> None:
        _check_port(self.port)
        if self.max_media_calls < 0:
            raise ValueError("max_media_calls must be 0 or more")
        if "{customer_id}" not in self.domain_template:
            raise ValueError("domain_template must hold {customer_id}")
        if bool(self.certificate) != bool(self.private_key):
            raise ValueError("certificate and private_key go together")

    def domain(self, customer_id: int) -> str:
        """A customer's `sip_domain`, as `/me` shows it and SIP clients name it."""
        return self.domain_template.replace("{customer_id}", str(customer_id))


def _within(section: Section, bounds: dict[str, float]) -> None:
    """Each named value of `section` (when set) is 0 to its bound, so a call's record stays within a day."""
    for name, most in bounds.items():
        value = getattr(section, name)
        if value is not None and not 0 <= value <= most:
            raise ValueError(f"{name} must be 0 to {most}")


class Settings(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """The whole configuration, one typed value passed to `create_app` and the CLI."""

    server: Server = msgspec.field(default_factory=Server)
    api: Api = msgspec.field(default_factory=Api)
    storage: Storage = msgspec.field(default_factory=Storage)
    bootstrap: Bootstrap = msgspec.field(default_factory=Bootstrap)
    control: Control = msgspec.field(default_factory=Control)
    log: Log = msgspec.field(default_factory=Log)
    cors: Cors = msgspec.field(default_factory=Cors)
    auth: Auth = msgspec.field(default_factory=Auth)
    mail: Mail = msgspec.field(default_factory=Mail)
    eventlog: EventLogSettings = msgspec.field(default_factory=EventLogSettings)
    simulator: Simulator = msgspec.field(default_factory=Simulator)
    billing: Billing = msgspec.field(default_factory=Billing)
    webhooks: Webhooks = msgspec.field(default_factory=Webhooks)
    faults: Faults = msgspec.field(default_factory=Faults)
    stream: Stream = msgspec.field(default_factory=Stream)
    sip: Sip = msgspec.field(default_factory=Sip)

    @property
    def data_dir(self) -> Path:
        return Path(self.storage.data_dir)


def _section_types() -> dict[str, type[Section]]:
    return {f.name: f.type for f in msgspec.structs.fields(Settings)}


def _env_overrides(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Turn `TELEPHONY_SECTION_KEY=value` into nested raw values, still as strings."""
    sections = _section_types()
    out: dict[str, dict[str, Any]] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        section, _, key = name[len(ENV_PREFIX) :].lower().partition("_")
        if section not in sections:
            raise ConfigError(f"unknown config section {section!r} (from {name})")
        if not key:
            raise ConfigError(f"no config key after the section in {name}")
        out.setdefault(section, {})[key] = raw
    return out


_BOOLEANS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False, "on": True, "off": False}


def _coerce_env(section: str, key: str, raw: str) -> Any:
    """Read an environment string as the declared type of `section.key`."""
    fields = {f.name: f.type for f in msgspec.structs.fields(_section_types()[section])}
    if key not in fields:
        raise ConfigError(f"unknown config key {section}.{key} (from {ENV_PREFIX}{section.upper()}_{key.upper()})")
    if fields[key] == list[str]:
        return [item.strip() for item in raw.split(",") if item.strip()]
    if fields[key] is bool:
        word = raw.strip().lower()
        if word not in _BOOLEANS:
            raise ConfigError(f"config key {section}.{key}: expected one of {'/'.join(_BOOLEANS)}, got {raw!r}")
        return _BOOLEANS[word]
    if fields[key] in (int, float):
        try:
            return msgspec.convert(raw, fields[key], strict=False)
        except msgspec.ValidationError:
            raise ConfigError(f"config key {section}.{key}: expected {fields[key].__name__}, got {raw!r}") from None
    return raw


def _location(err: msgspec.ValidationError) -> str:
    message = str(err)
    path = message.rpartition(" - at `$.")[2].rstrip("`") if " - at `$." in message else ""
    if "unknown field" in message:
        unknown = message.split("`")[1]
        return f"unknown config key {path + '.' if path else ''}{unknown}"
    return f"config key {path}: {message.partition(' - at')[0]}"


def load_settings(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Read `path` (if it exists), apply environment overrides and validate everything."""
    environ = os.environ if environ is None else environ
    raw: dict[str, Any] = {}
    if path is not None:
        try:
            raw = tomllib.loads(Path(path).read_text())
        except FileNotFoundError as exc:
            raise ConfigError(f"config file not found: {path}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    try:
        for section, values in _env_overrides(environ).items():
            target = raw.setdefault(section, {})
            for key, value in values.items():
                target[key] = _coerce_env(section, key, value)
        return msgspec.convert(raw, Settings)
    except msgspec.ValidationError as exc:
        raise ConfigError(_location(exc)) from None
