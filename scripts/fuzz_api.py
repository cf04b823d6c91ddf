#!/usr/bin/env python
"""Fuzz the whole API: generated requests to every operation of the server's own OpenAPI document.

Starts the real app on 127.0.0.1 over a fresh data dir, reads `/_telephony/openapi.json` from it,
and sends each operation schemathesis-generated requests, valid and invalid (`--per-operation`
examples of each mode), with an API key and the control key, so the control endpoints are fuzzed
too. A request that deletes the caller's own customer, or moves the clock past every token's life,
only costs the next ones their authentication: the key is made again when a request finds it gone.

Any 5xx answer is printed as a curl command and the run exits 1.

Usage: .venv/bin/python scripts/fuzz_api.py [--per-operation N] [--seed S] [--dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

from telephony.config import Control, Settings, Storage
from telephony.embedded import serving

CONTROL_KEY = "fuzz-control-key-0123456789"
SERVICE = "voipstudio"


@schemathesis.serializer("application/x-ndjson")
def json_lines(context, value) -> bytes:
    """An import body: the generated text as it is."""
    return value.encode() if isinstance(value, str) else bytes(value)


class Caller:
    """The headers every request carries; a fresh customer and API key when the old ones are gone."""

    def __init__(self, base_url: str) -> None:
        self.base_url, self.made = base_url, 0
        self.headers = self._make()

    def _control(self, method: str, path: str, **kwargs) -> dict:
        response = requests.request(method, self.base_url + path, headers={"X-Control-Key": CONTROL_KEY},
                                    timeout=30, **kwargs)  # fmt: skip
        assert response.status_code in (200, 201), (path, response.status_code, response.text)
        return response.json()["data"]

    def _make(self) -> dict[str, str]:
        self.made += 1
        email = f"fuzz{self.made}@example.com"
        created = self._control("POST", "/_telephony/customers",
                                json={"name": f"Fuzz {self.made}", "admin_email": email,
                                      "admin_password": "fuzz-password-123"})  # fmt: skip
        key = self._control("POST", f"/_telephony/users/{created['user']['id']}/apikeys", json={"name": "fuzz"})
        return {"X-Auth-Token": key["key"], "X-Control-Key": CONTROL_KEY}

    def refresh_if_gone(self) -> None:
        me = requests.get(f"{self.base_url}/v1.2/{SERVICE}/me", headers=self.headers, timeout=30)
        if me.status_code == 401:
            self.headers = self._make()


def fuzz(base_url: str, per_operation: int, run_seed: int) -> tuple[Counter, list[str]]:
    document = requests.get(f"{base_url}/_telephony/openapi.json", timeout=30).json()
    schema = schemathesis.openapi.from_dict(document)
    caller = Caller(base_url)
    statuses: Counter = Counter()
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    for number, operation in enumerate(operations, start=1):
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            caller.refresh_if_gone()

            @seed(run_seed)
            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=per_operation, deadline=None, database=None, phases=[Phase.generate],
                      suppress_health_check=list(HealthCheck))  # fmt: skip
            def send(case) -> None:
                response = case.call(base_url=base_url, headers=caller.headers, timeout=30)
                statuses[response.status_code] += 1
                if response.status_code >= 500:
                    failures.append(f"{response.status_code} {case.as_curl_command(headers=caller.headers)}")

            try:
                send()
            except Unsatisfiable:  # no invalid request exists for an operation that takes nothing
                pass
            except Exception as exc:  # a strategy schemathesis cannot build: say so, go on
                print(f"  {operation.label} ({mode.value}): not generated: {type(exc).__name__}: {exc}")
        if number % 50 == 0:
            print(f"  {number}/{len(operations)} operations, {sum(statuses.values())} requests", flush=True)
    return statuses, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-operation", type=int, default=20, help="examples per operation and mode")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", help="where the data dir goes (default: a temporary directory)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        config = Settings(storage=Storage(data_dir=str(Path(scratch) / "data")), control=Control(key=CONTROL_KEY))
        with serving(config) as base_url:
            statuses, failures = fuzz(base_url, args.per_operation, args.seed)
    total = sum(statuses.values())
    print(f"{total} requests in {time.perf_counter() - started:.0f} s; statuses: {dict(sorted(statuses.items()))}")
    for failure in failures[:50]:
        print(failure)
    print(f"{len(failures)} answers were 5xx")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
