"""A reactor's lease on a PostgreSQL log: one holder across processes, taken over at once when the
holder dies (`kill -9`) or lets go."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys

import pytest

from telephony.eventlog.pg_lease import Lease

HOLDER = """
import asyncio, sys
from telephony.eventlog.pg_lease import Lease

async def hold():
    lease = Lease(sys.argv[1], "simulator")
    await lease.acquire()
    print("held", flush=True)
    await asyncio.Event().wait()  # holds the lease until the test kills this process

asyncio.run(hold())
"""


@pytest.fixture
def url(postgres_cluster):
    return postgres_cluster.url


async def someone_waits(url: str) -> None:
    """Return once a session is waiting for an advisory lock (a real event, seen by the server)."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        async with asyncio.timeout(5):
            while True:
                found = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                if (await (await conn.execute(found)).fetchone())[0]:
                    return
                await asyncio.sleep(0.01)


async def test_a_lease_has_one_holder_and_passes_on_when_it_is_released(url):
    first, second = Lease(url, "sender"), Lease(url, "sender")
    await first.acquire()
    try:
        assert first.held and not await second.try_acquire()
        waiting = asyncio.create_task(second.acquire())
        await someone_waits(url)
        assert not waiting.done()
        await first.release()
        await asyncio.wait_for(waiting, 5)
        assert second.held and not first.held
    finally:
        await first.release()
        await second.release()


async def test_leases_of_different_names_are_held_at_once(url):
    simulator, sender = Lease(url, "simulator-x"), Lease(url, "sender-x")
    try:
        assert await simulator.try_acquire() and await sender.try_acquire()
    finally:
        await simulator.release()
        await sender.release()


async def test_the_lease_of_a_killed_process_is_taken_over_within_seconds(url):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, url], stdout=subprocess.PIPE, text=True)
    mine = Lease(url, "simulator")
    try:
        line = await asyncio.wait_for(asyncio.to_thread(holder.stdout.readline), 30)
        assert line.strip() == "held"
        assert not await mine.try_acquire()
        waiting = asyncio.create_task(mine.acquire())
        await someone_waits(url)
        holder.send_signal(signal.SIGKILL)
        await asyncio.wait_for(waiting, 5)
        assert mine.held
    finally:
        holder.kill()
        holder.wait()
        await mine.release()


async def test_waiting_for_a_lease_can_be_given_up(url):
    holder, waiter = Lease(url, "reports"), Lease(url, "reports")
    await holder.acquire()
    try:
        waiting = asyncio.create_task(waiter.acquire())
        await someone_waits(url)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not waiter.held
        await holder.release()
        assert await waiter.try_acquire()
    finally:
        await holder.release()
        await waiter.release()
