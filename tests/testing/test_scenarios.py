"""Scenario files run by `telephony scenario run`: the shipped ones pass twice and write the same log,
a failed expectation exits 1 saying what differed, a bad file exits 2 with each problem's line, the
JUnit file parses with a JUnit reader, and a run against a running server works the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

import junitparser
import pytest
import yaml

from telephony.cli.main import main
from telephony.config import Control, Settings, Simulator, Storage
from telephony.embedded import serving
from tests.serving import telephony

SHIPPED = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))
SMALL = """\
name: A voicemail
seed: 5
setup:
  users:
    ann: {first_name: Ann, ext: "201", dnd: true, vm_to_email: true, vm_emails: [ann@example.com]}
  numbers:
    main: {e164: "+442071230005", target_type: U, target_id: "${ann}"}
steps:
  - at: 0
    name: caller
    inbound_call: {from: "+447700900005", to: "${main}", hangup_after: 15}
expect:
  - at: 1
    call: {call: caller, state: CONNECTED, match: {context: VOICEMAIL}}
  - cdrs: {where: {live_id: "${caller}"}, records: [{disposition: VM, duration: 15}]}
  - mail: {to: ann@example.com, count: 1}
"""


def run(capsys, *args: str | Path) -> tuple[int, str, str]:
    code = main(["scenario", "run", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def head(out: str) -> str:
    return re.search(r"^log: \d+ events, head ([0-9a-f]{64})$", out, re.MULTILINE).group(1)


def written(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_a_shipped_scenario_passes_twice_with_its_seed_and_writes_the_same_log(capsys, tmp_path, path):
    code, first, err = run(capsys, path, "--data-dir", tmp_path / "first")
    assert code == 0, first + err
    assert " FAIL " not in first and re.search(r"^\d+ passed, 0 failed$", first, re.MULTILINE)
    code, again, err = run(capsys, path, "--data-dir", tmp_path / "again")
    assert code == 0, again + err
    assert head(first) == head(again)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_a_shipped_scenario_passes_whatever_the_seed_as_it_pins_what_it_relies_on(capsys, path):
    failed = {}
    for seed in range(1, 21):
        code, out, err = run(capsys, path, "--seed", str(seed))
        if code != 0:
            failed[seed] = [line for line in (out + err).splitlines() if " FAIL " in line or "Error" in line]
    assert failed == {}


def test_verify_names_the_same_head_a_run_printed(capsys, tmp_path):
    code, out, _ = run(capsys, written(tmp_path, SMALL), "--data-dir", tmp_path / "data")
    assert code == 0, out
    verified = telephony("--data-dir", tmp_path / "data", "verify", cwd=tmp_path)
    assert verified.returncode == 0 and f"(head {head(out)})" in verified.stdout


def test_another_seed_writes_another_log(capsys, tmp_path):
    path = written(tmp_path, SMALL)
    assert head(run(capsys, path)[1]) != head(run(capsys, path, "--seed", "6")[1])


def test_a_failed_expectation_exits_1_naming_it_its_line_the_step_before_it_and_what_differed(capsys, tmp_path):
    path = written(tmp_path, SMALL.replace("duration: 15", "duration: 16"))
    code, out, _ = run(capsys, path, "--junit", tmp_path / "results.xml")
    assert code == 1
    (failed,) = [line for line in out.splitlines() if " FAIL " in line]
    assert "expect 2 (line 15) cdrs" in failed
    assert "record 1 (id 1): duration: expected 16, got 15 (after step 1)" in failed
    assert out.rstrip().endswith("2 passed, 1 failed")


def test_the_junit_file_has_a_testcase_per_expectation_and_parses_with_a_junit_reader(capsys, tmp_path):
    path = written(tmp_path, SMALL.replace("duration: 15", "duration: 16"))
    run(capsys, path, "--junit", tmp_path / "results.xml")
    (suite,) = list(junitparser.JUnitXml.fromfile(str(tmp_path / "results.xml")))
    assert (suite.name, suite.tests, suite.failures, suite.errors, suite.skipped) == ("A voicemail", 3, 1, 0, 0)
    cases = {case.name: case for case in suite}
    assert list(cases) == ["expect 1 (line 13) call", "expect 2 (line 15) cdrs", "expect 3 (line 16) mail"]
    assert cases["expect 1 (line 13) call"].is_passed
    (failure,) = cases["expect 2 (line 15) cdrs"].result
    assert isinstance(failure, junitparser.Failure) and "duration: expected 16, got 15" in failure.message


def test_the_junit_file_says_in_real_seconds_what_each_case_and_the_whole_run_took(capsys, tmp_path):
    run(capsys, written(tmp_path, SMALL), "--junit", tmp_path / "results.xml")
    (suite,) = list(junitparser.JUnitXml.fromfile(str(tmp_path / "results.xml")))
    times = [case.time for case in suite]
    assert len(times) == 3 and all(0 < took < 10 for took in times)
    assert suite.time > sum(times)  # the run's setup too


def test_a_step_answered_otherwise_fails_and_what_follows_is_skipped(capsys, tmp_path):
    text = SMALL.replace('to: "${main}", hangup_after: 15}', 'to: "+442079999999", hangup_after: 15}')
    code, out, _ = run(capsys, written(tmp_path, text), "--junit", tmp_path / "results.xml")
    assert code == 1
    assert re.search(r"FAIL  step 1 \(line 9\) inbound_call: POST /_telephony/simulate/inbound-call answered 404 "
                     r"\(Number \+442079999999 not found\), not a 2xx answer", out)  # fmt: skip
    assert out.count(" skip ") == 3 and out.rstrip().endswith("0 passed, 1 failed, 3 skipped")
    (suite,) = list(junitparser.JUnitXml.fromfile(str(tmp_path / "results.xml")))
    assert (suite.tests, suite.failures, suite.skipped) == (4, 1, 3)


def test_a_step_may_expect_a_refusal(capsys, tmp_path):
    text = SMALL.replace('to: "${main}", hangup_after: 15}', 'to: "+442079999999"}\n    status: 404')
    text = text[: text.index("expect:")]
    code, out, _ = run(capsys, written(tmp_path, text))
    assert code == 0 and "ok    step 1 (line 9) inbound_call: 404 (caller)" in out


EVERY = """\
name: Every kind of step
seed: 2
setup:
  users:
    ann: {first_name: Ann, ext: "201"}
  ivrs:
    menu: {name: Menu, two: "U:${ann}", timeout: 30}
  numbers:
    main: {e164: "+442071230007", target_type: I, target_id: "${menu}", sms_enabled: true}
  credit: 5
steps:
  - {at: 0, name: caller, inbound_call: {from: "+447700900007", to: "${main}", answer: {"${ann}": 3}}}
  - {at: 2, dtmf: {call: caller, digits: "2"}}
  - {at: 10, hangup: caller}
  - {at: 20, name: text, inbound_sms: {from: "+447700900007", to: "${main}", text: call me back}}
  - {at: 30, name: vip, request: {method: POST, path: /calllabels, body: {name: VIP}}}
  - {at: 31, request: {method: GET, path: "/calllabels/${vip}"}}
expect:
  - {at: 3, call: {call: caller, leg: 2, state: RINGING}}
  - {at: 6, call: {call: caller, state: CONNECTED, match: {dst_name: Ann}}}
  - {at: 11, call: {call: caller, state: HANGUP}}
  - sms: {records: [{message: call me back, type: in, from: "+447700900007"}]}
  - transactions: {count: 1, records: [{type: credit, amount: 5}]}
  - charge: {call: caller, amount: 0, balance: 5}
  - webhooks: {call: caller, leg: 2, events: [call.initial, call.ringing, call.connected, call.hangup]}
"""


def test_each_kind_of_step_and_check_works(capsys, tmp_path):
    code, out, err = run(capsys, written(tmp_path, EVERY))
    assert code == 0, out + err
    steps = [line.split(": ", 1)[1] for line in out.splitlines() if " step " in line]
    assert steps == ["call 1 (caller)", "2 pressed: RINGING", "caller hung up", "SMS 1 (text)", "201, id 1 (vip)",
                     "200, id 1"]  # fmt: skip


FAULTS = """\
name: A failing platform
seed: 3
simulator:
  destinations:
    - {prefix: "+4479460", outcome: answer, ring_seconds: 4, talk_seconds: 20}
setup:
  users:
    sam: {first_name: Sam, ext: "301"}
steps:
  - {at: 0, name: outage, fault: {method: POST, path: /calls, status: 503, retry_after: 5, count: 2}}
  - {at: 1, as: sam, call: {to: "+447946000123"}, status: 503}
  - {at: 2, as: sam, call: {to: "+447946000123"}, status: 503}
  - {at: 3, name: first, as: sam, call: {to: "+447946000123"}}
  - {at: 60, name: throttled, fault: {path: "/cdrs*", status: 429}}
  - {at: 61, as: sam, request: {method: GET, path: /cdrs}, status: 429}
  - {at: 62, stop_fault: throttled}
  - {at: 63, as: sam, request: {method: GET, path: /cdrs}}
expect:
  - {at: 10, call: {call: first, state: CONNECTED}}
  - cdrs: {count: 1, where: {dst: "+447946000123"}}
"""


def test_fault_steps_start_and_stop_rules_through_the_faults_api_and_the_run_stays_reproducible(capsys, tmp_path):
    path = written(tmp_path, FAULTS)
    code, out, err = run(capsys, path, "--data-dir", tmp_path / "first")
    assert code == 0, out + err
    steps = [line.split(": ", 1)[1] for line in out.splitlines() if " step " in line]
    assert steps == ["fault rule 1 (outage)", "503", "503", "call 1 (first)", "fault rule 2 (throttled)", "429",
                     "throttled stopped", "200"]  # fmt: skip
    assert main(["log", "--data-dir", str(tmp_path / "first"), "--json", "--type", "fault.added", "--type",
                 "fault.matched", "--type", "fault.removed"]) == 0  # fmt: skip
    kept = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["type"], e["data"]["id"], e["data"].get("fired")) for e in kept] == [
        ("fault.added", 1, None), ("fault.matched", 1, 1), ("fault.matched", 1, 2),  # the third call passed
        ("fault.added", 2, None), ("fault.matched", 2, 1), ("fault.removed", 2, None)]  # fmt: skip
    code, again, _ = run(capsys, path, "--data-dir", tmp_path / "again")
    assert code == 0 and head(again) == head(out)


BAD = """\
name: Bad
seed: one
setup:
  users:
    ann: {ext: "201"}
steps:
  - at: -1
    inbound_call: {from: "+447700900005", to: "+442071230005"}
  - hangup: caller
    unknown: 1
expect:
  - cdrs: {count: 1}
    mail: {to: a@example.com}
"""


def test_a_bad_file_exits_2_naming_every_problem_at_once_in_the_order_of_its_lines(capsys, tmp_path):
    code, out, err = run(capsys, written(tmp_path, BAD))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"{tmp_path}/scenario.yaml:2: seed: Expected an integer, got a string",
        f"{tmp_path}/scenario.yaml:7: steps[0].at: Expected a number at least 0.0",
        f"{tmp_path}/scenario.yaml:9: steps[1].hangup: no call is named caller",
        f"{tmp_path}/scenario.yaml:10: steps[1].unknown: This field is not allowed here",
        f"{tmp_path}/scenario.yaml:12: expect[0]: Give exactly one of call, cdrs, voicemessages, sms, transactions, "
        "mail, webhooks, charge (got 2)",
    ]


NAMES = """\
name: Names
setup:
  users:
    ann: {ext: "201"}
  contacts:
    lena: {first_name: Lena, tel: "${main}"}
  numbers:
    main: {e164: "+442071230005", target_type: U, target_id: "${ann}"}
steps:
  - {at: 10, name: caller, inbound_call: {from: "+447700900005", to: "${main}"}}
  - {at: 5, hangup: "${caller}"}
  - {at: 20, hangup: "${nobody}"}
  - {at: 21, as: lena, transfer: {call: caller, to: "${bob}"}}
expect:
  - {at: 1, call: {call: caller}}
  - cdrs: {where: {live_id: "${caller}"}}
"""


def test_each_name_used_is_named_with_what_it_is_and_made_before_it_runs(capsys, tmp_path):
    code, _, err = run(capsys, written(tmp_path, NAMES))
    assert code == 2
    assert err.splitlines() == [f"{tmp_path}/scenario.yaml:{line}" for line in [
        "6: setup.contacts.lena.tel: main is made later (setup.numbers.main): nothing is named main yet here",
        "11: steps[1].hangup: caller is made later (steps[0].name at 10 s): nothing is named caller yet here",
        "12: steps[2].hangup: no call is named nobody (the file's calls: caller)",
        "13: steps[3].as: lena is a contact (setup.contacts.lena), not a user",
        "13: steps[3].transfer.to: nothing is named bob (the file's names: ann, caller, lena, main)",
        "15: expect[0].call.call: caller is made later (steps[0].name at 10 s): nothing is named caller yet here",
    ]]  # fmt: skip


def test_a_field_naming_a_call_takes_its_name_bare_or_as_in_a_body(capsys, tmp_path):
    called = "hangup_after: 15}\n"
    code, out, err = run(
        capsys, written(tmp_path, SMALL.replace(called, called + '  - {at: 2, hangup: "${caller}"}\n'))
    )
    assert code == 1 and "caller hung up" in out, out + err  # the voicemail record then lasts 2 s, not 15
    assert "record 1 (id 1): duration: expected 15, got 2" in out


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("name: x\nsteps:\n  - at: 1\n    hangup: a\n    answer: b\n", ":3: steps[0]: Give exactly one of"),
        ("name: x\nsetup: {users: {a: {}}}\nsteps:\n  - {name: a, hangup: c}\n", ":4: steps[0].name: The name a is"),
        ("name: x\nseed: 1\nseed: 2\n", ":3: seed: given again (first on line 2)"),
        ("name: x\nsteps: [\n", ":3: not YAML:"),
        ("", ":1: the file is empty"),
        ("- a list\n", ":1: the file: Expected an object, got an array"),
    ],
    ids=["two actions", "a name twice", "a key twice", "not YAML", "empty", "not an object"],
)
def test_a_bad_file_is_told_with_the_line_of_its_problem(capsys, tmp_path, text, said):
    code, _, err = run(capsys, written(tmp_path, text))
    assert code == 2 and said in err, err


def test_a_setup_the_server_refuses_exits_2_naming_the_field_and_its_line(capsys, tmp_path):
    text = SMALL.replace('ext: "201", dnd: true', 'ext: "201", dnd: maybe')
    code, out, err = run(capsys, written(tmp_path, text))
    assert code == 2
    assert f"{tmp_path}/scenario.yaml:5: setup.users.ann.dnd: the server refused it (400): " in err


def test_a_name_nothing_has_exits_2_with_its_line(capsys, tmp_path):
    code, _, err = run(capsys, written(tmp_path, SMALL.replace('to: "${main}"', 'to: "${nowhere}"')))
    assert code == 2 and f"{tmp_path}/scenario.yaml:11: steps[0].inbound_call.to: nothing is named nowhere" in err


def test_a_scenario_runs_against_a_running_server_as_it_does_in_process(capsys, tmp_path):
    key = "a-control-key-of-the-server"
    settings = Settings(storage=Storage(data_dir=str(tmp_path / "server")), control=Control(key=key),
                        simulator=Simulator(seed=5))  # fmt: skip
    path = written(tmp_path, SMALL)
    with serving(settings) as url:
        code, out, err = run(capsys, path, "--server", url, "--control-key", key)
        assert code == 0, out + err
        assert f"on {url}" in out and "log:" not in out
        code, _, err = run(capsys, path, "--server", url, "--control-key", key)  # a new customer each run
    assert code == 2  # ... and the number is the first run's customer's
    assert f"{path}:7: setup.numbers.main.e164: the server refused it (400): This number is already provisioned" in err


def test_a_file_with_a_simulator_block_is_refused_against_a_running_server_naming_the_block(capsys, tmp_path):
    key = "a-control-key-of-the-server"
    settings = Settings(storage=Storage(data_dir=str(tmp_path / "server")), control=Control(key=key))
    path = Path(__file__).parents[2] / "scenarios" / "support-line.yaml"
    with serving(settings) as url:
        code, out, err = run(capsys, path, "--server", url, "--control-key", key)
    assert (code, out) == (2, "")
    assert err == (f"{path}:9: simulator: applies in-process only, and a server keeps its own [simulator] settings: "
                   "run the file in-process, or leave the block out and give the server those settings\n")  # fmt: skip


def test_the_json_form_of_a_scenario_runs_too(capsys, tmp_path):
    path = written(tmp_path, json.dumps(yaml.safe_load(SMALL), indent=2), "scenario.json")
    code, out, _ = run(capsys, path)
    assert code == 0, out
