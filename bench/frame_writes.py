"""Benchmark: what writing an ack and a state to a socket costs, as two writes or as one.

What it measures
    uvloop's ``transport.write`` on a socketpair whose other end is drained by the same
    loop: an ack frame (34 bytes) and a state frame (1.5 KB, a table of four's size) written
    as two calls, then joined into one, alternating; CPU time of the thread (the system
    call included) per pair.

Why
    ``dudo serve`` writes a bid's ack and the acting seat's state in one system call
    (``Connection.send_both``, docs/benchmarks.md, issue 23); this says what that saves.

    python bench/frame_writes.py
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import time

import uvloop

ACK = b"\x81\x22" + b"a" * 34
STATE = b"\x81\x7e\x05\xdc" + b"s" * 1500


async def measure(pairs: int, rounds: int) -> None:
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)

    def drain() -> None:
        try:
            while theirs.recv(1 << 20):
                pass
        except BlockingIOError:
            pass

    loop.add_reader(theirs, drain)
    transport, _ = await loop.create_connection(asyncio.Protocol, sock=ours)
    for _ in range(rounds):
        for how in ("two writes", "one write"):
            started = time.thread_time()
            for number in range(pairs):
                if how == "two writes":
                    transport.write(ACK)
                    transport.write(STATE)
                else:
                    transport.write(ACK + STATE)
                if number % 50 == 0:
                    await asyncio.sleep(0)  # let the reader drain
            spent = time.thread_time() - started
            print(f"{how:10}  {spent / pairs * 1e6:6.2f} us of CPU per ack and state")
    transport.close()
    theirs.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    uvloop.run(measure(args.pairs, args.rounds))


if __name__ == "__main__":
    main()
