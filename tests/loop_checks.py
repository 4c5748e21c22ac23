"""``Gate``: a job that can finish only while the trio loop keeps turning, for the tests
that show slow work runs off the loop (run on the loop, it fails instead of hanging)."""

from __future__ import annotations

import threading

import trio

#: Seconds a gated job waits for the loop before it fails.
PATIENCE = 10.0


class Gate:
    """``nursery.start_soon(gate.turn)``, then ``gate.wait()`` inside the job."""

    def __init__(self, turns: int = 20) -> None:
        self.turns = turns
        self.turned = 0
        self.open = threading.Event()

    async def turn(self) -> None:
        for _ in range(self.turns):
            await trio.sleep(0.001)
            self.turned += 1
        self.open.set()

    def wait(self) -> None:
        if not self.open.wait(PATIENCE):
            raise AssertionError("the loop did not turn while the job worked")
