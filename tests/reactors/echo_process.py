"""A process that appends events and echoes them with a reactor until it is killed.

`python -m tests.reactors.echo_process DATA_DIR`: the kill -9 test runs it and kills it mid-flight.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from telephony.clock import Clock
from telephony.eventlog import EventLog
from telephony.projections import Projections
from telephony.reactors.reactor import ReactorRunner
from telephony.reactors.running import Reactors
from tests.reactors.kinds import THINGS, Echo, happened


async def main(data_dir: Path) -> None:
    clock = Clock()
    log = await EventLog.open(data_dir, Projections([], THINGS), clock, progress=False)
    reactors = Reactors([ReactorRunner(Echo(), log, clock, chunk=7)])
    reactors.start()
    n = 0
    while True:
        await asyncio.gather(*(log.append([happened(n + i)]) for i in range(10)))
        n += 10


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
