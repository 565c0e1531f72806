"""Benchmark: what one action costs the server's own code, without sockets.

What it measures
    Rooms of 4 players (the same play as bench/load.py: one of the three lowest legal
    bids, dudo after 2 to 6 bids, a rematch when a game ends) are driven in this process,
    straight into each room's actor: every action is JSON text parsed by the server's
    parser (``parse_client_message``), judged and applied by the engine, stored in SQLite
    (the real :class:`~dudo.store.sql.SqlStore`, its writer thread and batches), and
    answered with an ack and a state per seat (each seat's view, encoded). The sockets
    are sinks: a send costs a coroutine and nothing else, so what is left out is exactly
    the transport (uvicorn, the websockets frames, the system calls) and the inbound
    frame. Reported: CPU of this process (all threads) per action, and actions/s.

    With ``--profile FILE`` the measured actions are sampled by py-spy (raw collapsed
    stacks; bench/action_parts.py splits them into parse, engine, store, views,
    encoding, ...). Sampling slows the process down: the CPU figure of such a run is
    not comparable.

    python bench/action_cost.py                 # 50 rooms, 20,000 actions
    python bench/action_cost.py --rooms 200 --actions 50000

Why
    bench/load.py's figures move with whatever else the machine runs (the driver shares
    its cores); this one has no network and no driver beyond a few lines per action, so
    a change to the server's code shows here in a minute and steadily.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from dudo.game import DUDO, Phase
from dudo.rules import PRESETS
from dudo.server.protocol import parse_client_message
from dudo.server.table import inbox
from dudo.server.table.connection import Connection
from dudo.server.table.room import Room, RoomConfig
from dudo.store.sql import SqlStore


class Table:
    """One room and its four seats' sockets (sinks), played as bench/load.py plays."""

    def __init__(self, room: Room, index: int) -> None:
        self.room = room
        self.rng = random.Random(index)
        self.bids_before_call = self.rng.randint(2, 6)
        self.ids = 0
        self.changed = asyncio.Event()
        self.sent = 0
        self.connections = [Connection(self._sink, seat) for seat in range(4)]

    async def _sink(self, text: str) -> None:
        self.sent += 1
        self.changed.set()

    def message(self) -> str | None:
        """The next message of whoever should act, as JSON text (None: nobody now)."""
        state = self.room.state
        game = state.game
        self.ids += 1
        if game is None:
            return None
        if game.phase is Phase.OVER:
            return orjson.dumps({"type": "rematch", "id": f"m{self.ids}"}).decode()
        if game.phase is not Phase.BIDDING:
            return None
        legal = game.legal_actions(game.turn)
        bids = list(legal.any_bids[:3])
        message: dict[str, Any]
        if DUDO in legal.calls and (len(game.bids) >= self.bids_before_call or not bids):
            self.bids_before_call = self.rng.randint(2, 6)
            message = {"type": "call", "call": "dudo"}
        else:
            bid = self.rng.choice(bids)
            message = {"type": "bid", "quantity": bid.quantity, "face": bid.face}  # type: ignore[union-attr]
        message |= {"id": f"m{self.ids}", "version": state.version}
        return orjson.dumps(message).decode()

    async def play(self, until: list[int]) -> None:
        while until[0] > 0:
            self.changed.clear()
            text = self.message()
            if text is not None:
                game = self.room.state.game
                seat = 0 if game is None or game.phase is Phase.OVER else game.turn
                until[0] -= 1
                self.room.tell(inbox.Deliver(self.connections[seat], parse_client_message(text)))
            await self.changed.wait()


async def set_up(store: SqlStore, rooms: int) -> list[Table]:
    config = RoomConfig(bot_delay=0, reveal_pause=0, seed_window=0, grace=1e9)
    tables = []
    for index in range(rooms):
        room = await Room.create(
            f"R{index:05d}",
            store,
            config,
            rules=PRESETS["perudo"],
            seats=4,
            bots=[],
            timer=0,
            public=False,
        )
        assert room is not None
        room.start_task()
        for seat in range(4):
            await room.ask(inbox.Join(f"p{seat}"))
        table = Table(room, index)
        for connection in table.connections:
            room.tell(inbox.Connect(connection))
        room.tell(
            inbox.Deliver(table.connections[0], parse_client_message('{"type":"start","id":"s"}'))
        )
        tables.append(table)
    await asyncio.sleep(0.2)
    return tables


def sampled(path: str | None) -> subprocess.Popen[bytes] | None:
    """py-spy recording this process (raw collapsed stacks) until it is interrupted."""
    if path is None:
        return None
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    process = subprocess.Popen(
        [spy, "record", "-p", str(os.getpid()), "-r", "500", "-f", "raw", "-o", path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # py-spy attaches
    return process


async def main(args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="dudo-cost-") as workdir:
        store = SqlStore(f"sqlite:///{Path(workdir) / 'cost.db'}")
        await store.open()
        try:
            tables = await set_up(store, args.rooms)
            warm = [args.actions // 10]
            await asyncio.gather(*(table.play(warm) for table in tables))
            entries0, sent0 = store.appended, sum(t.sent for t in tables)
            left = [args.actions]
            spy = sampled(args.profile)
            cpu, wall = time.process_time(), time.perf_counter()
            await asyncio.gather(*(table.play(left) for table in tables))
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if spy is not None:
                spy.send_signal(signal.SIGINT)  # py-spy writes what it has, and ends
                spy.wait(timeout=60)
            entries = store.appended - entries0
            sent = sum(t.sent for t in tables) - sent0
        finally:
            for table in tables:
                await table.room.stop()
            await store.close()
    return {
        "actions": args.actions,
        "cpu_ms_per_action": cpu / args.actions * 1000,
        "actions_per_second": args.actions / wall,
        "entries_per_action": entries / args.actions,
        "messages_per_action": sent / args.actions,
    }


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="CPU per action of the server's own code.")
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    parser.add_argument(
        "--profile", metavar="FILE", help="py-spy record the measured actions (raw stacks)"
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover
        runner = asyncio.run
    results = [runner(main(arguments)) for _ in range(arguments.repeat)]
    for result in results:
        print(" ".join(f"{key}={value:.3f}" for key, value in result.items()), flush=True)
    best = min(results, key=lambda r: r["cpu_ms_per_action"])
    print(f"best: {best['cpu_ms_per_action']:.3f} ms of CPU per action")
