"""Configuration: the documented file loads, environment variables override, mistakes name the key."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from telephony.config import ConfigError, Server, Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_config_file_loads_with_the_documented_defaults():
    settings = load_settings(ROOT / "config.toml", environ={})
    assert (settings.server.host, settings.server.port) == ("127.0.0.1", 8080)
    assert settings.api.service == "voipstudio"
    assert settings.storage.data_dir == "./data"
    assert (settings.webhooks.allow_networks, settings.webhooks.deny_networks) == ([], [])
    assert (settings.faults.rules, settings.stream.heartbeat_seconds) == ([], 15.0)


def test_fault_rules_in_the_configuration_are_read_as_the_api_takes_them(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        "[[faults.rules]]\nmethod = 'POST'\npath = '/calls'\nstatus = 503\nretry_after = 5\ncount = 2\n\n"
        "[[faults.rules]]\nwebhook = 'crm'\nduplicate = true\nprobability = 0.1\n"
    )
    api, webhook = load_settings(path, environ={}).faults.rules
    assert (api.method, api.path, api.status, api.retry_after, api.count, api.effects) == ("POST", "/calls", 503, 5,
                                                                                          2, ["status"])  # fmt: skip
    assert (webhook.webhook, webhook.effects, webhook.probability) == ("crm", ["duplicate"], 0.1)


def test_environment_variables_override_the_file():
    env = {
        "TELEPHONY_SERVER_PORT": "9001",
        "TELEPHONY_BOOTSTRAP_ADMIN_EMAIL": "root@acme.test",
        "TELEPHONY_CORS_ALLOWED_ORIGINS": "https://a.test, https://b.test",
        "TELEPHONY_MAIL_STARTTLS": "true",
        "TELEPHONY_WEBHOOKS_DENY_NETWORKS": "10.0.0.0/8, fc00::/7",
    }
    settings = load_settings(ROOT / "config.toml", environ=env)
    assert settings.webhooks.deny_networks == ["10.0.0.0/8", "fc00::/7"]
    assert settings.server.port == 9001
    assert settings.bootstrap.admin_email == "root@acme.test"
    assert settings.cors.allowed_origins == ["https://a.test", "https://b.test"]
    assert settings.mail.starttls is True


@pytest.mark.parametrize(
    ("word", "value"),
    [("true", True), ("TRUE", True), ("1", True), ("Yes", True), ("on", True),
     ("false", False), ("False", False), ("0", False), ("no", False), ("OFF", False)],
)  # fmt: skip
def test_a_boolean_from_the_environment_is_one_of_the_usual_words(word, value):
    assert load_settings(None, environ={"TELEPHONY_MAIL_STARTTLS": word}).mail.starttls is value


@pytest.mark.parametrize(
    ("toml", "env", "named"),
    [
        ("[server]\nprot = 1\n", {}, "server.prot"),
        ("[server]\nport = 'eighty'\n", {}, "server.port"),
        ("[nonsense]\nx = 1\n", {}, "nonsense"),
        ("", {"TELEPHONY_SERVER_PORT": "eighty"}, "server.port"),
        ("", {"TELEPHONY_SERVER_COLOUR": "red"}, "server.colour"),
        ("[log]\nformat = 'xml'\n", {}, "log.format"),
        ("", {"TELEPHONY_SERVER_EVENT_LOOP": "trio"}, "server.event_loop"),
        ("", {"TELEPHONY_MAIL_STARTTLS": "maybe"}, "mail.starttls"),
        ("", {"TELEPHONY_MAIL_STARTTLS": ""}, "mail.starttls"),
        ("", {"TELEPHONY_NOPE_X": "1"}, "nope"),
        ("", {"TELEPHONY_SERVER": "1"}, "TELEPHONY_SERVER"),
        ("[webhooks]\nallow_networks = ['10.0.0.0/33']\n", {}, "allow_networks"),
        ("", {"TELEPHONY_WEBHOOKS_DENY_NETWORKS": "10.0.0.0/8, intranet"}, "deny_networks"),
        ("[[faults.rules]]\npath = '/calls'\nstatus = 404\n", {}, "faults.rules[0].status"),
        (
            "[[faults.rules]]\npath = '/calls'\nstatus = 503\n[[faults.rules]]\npath = '/calls'\n",
            {},
            "rules[1]: Give exactly one effect",
        ),
        ("[[faults.rules]]\nwebhook = 'crm'\nlatency_ms = 5\n", {}, "rules[0].latency_ms: This field is for API"),
        ("[[faults.rules]]\npath = '/calls'\nslow_body = 100\ncolour = 'red'\n", {}, "faults.rules[0].colour"),
        ("[stream]\nheartbeat_seconds = 0\n", {}, "heartbeat_seconds"),
    ],
)
def test_a_wrong_key_or_type_stops_the_start_naming_the_key(tmp_path, toml, env, named):
    path = tmp_path / "config.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError, match=re.escape(named)):
        load_settings(path, environ=env)


def test_settings_are_frozen_and_changed_copies_are_made_with_replace():
    settings = Settings()
    with pytest.raises(AttributeError):
        settings.server.port = 9000  # type: ignore[misc]  # the point of the test
    with pytest.raises(AttributeError):
        settings.server = Server(port=9000)  # type: ignore[misc]
    moved = msgspec.structs.replace(settings, server=msgspec.structs.replace(settings.server, port=9000))
    assert (moved.server.port, settings.server.port) == (9000, 8080)
