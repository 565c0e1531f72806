"""Stopping a room never hangs (dudo.server.tasks.stop_task, dudo.server.outage.within).

On Python 3.11 ``asyncio.wait_for`` over ``shield`` drops a cancellation that lands just as
what it waits for finishes. A room stopped while it saved a finished game (``within`` around
the store's call) thus ran on, parked on its inbox, and ``Room.stop`` waited forever: a CI
run hung until its 90 minutes ran out. The first test is that moment itself, at every loop
step around it; the others are the two mechanisms, each of which alone prevents it."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from dudo.rules import Rules
from dudo.server.outage import within
from dudo.server.protocol import parse_client_message
from dudo.server.table import inbox
from dudo.server.table.connection import Connection
from dudo.server.table.room import Room
from dudo.server.tasks import stop_task
from dudo.store.base import MemoryStore
from serverkit import CountingEntropy, FakeClock, fast_config


@pytest.mark.parametrize("steps", [0, 1, 2, 3, 5])
def test_a_room_stopped_as_it_saves_its_finished_game_stops(steps: int) -> None:
    """The game ends (the only player leaves a game of bots); ``steps`` loop steps after
    the room starts saving the record, someone stops the room: the stop ends."""

    async def scenario() -> str:
        store = MemoryStore()
        room = await Room.create(
            "STOP",
            store,
            fast_config(),
            rules=Rules.preset("perudo"),
            seats=2,
            bots=[None, "easy"],
            timer=0,
            public=False,
            clock=FakeClock(),
            entropy=CountingEntropy(),
        )
        room.config.grace = 0.0  # a bot takes the seat of the player who leaves at once
        room.start_task()
        await room.ask(inbox.Join("Ana"))
        stopping: list[asyncio.Future[None]] = []
        save_game = store.save_game

        async def save_then_stop(*args: Any) -> Any:
            loop = asyncio.get_running_loop()

            def later(left: int) -> None:
                if left == 0:
                    stopping.append(asyncio.ensure_future(room.stop()))
                else:
                    loop.call_soon(later, left - 1)

            later(steps)
            return await save_game(*args)

        store.save_game = save_then_stop  # type: ignore[method-assign]

        async def nowhere(_text: str) -> None:
            pass

        seat = Connection(nowhere, 0)
        room.tell(inbox.Connect(seat))
        for message in ('{"type":"start","id":"go"}', '{"type":"leave","id":"bye"}'):
            room.tell(inbox.Deliver(seat, parse_client_message(message)))
            await room.ask(inbox.Describe())
        async with asyncio.timeout(60):  # the bots play the game out
            while not stopping:
                await asyncio.sleep(0.001)
        done, _ = await asyncio.wait({stopping[0]}, timeout=10)
        assert done, "Room.stop did not end"
        assert room.task is not None and room.task.done()
        return room.state.status

    assert asyncio.run(scenario()) == "over"


@pytest.mark.parametrize("steps", [0, 1, 2])
def test_a_cancellation_landing_as_the_store_answers_is_not_lost(steps: int) -> None:
    """``within``: the caller is cancelled ``steps`` loop steps after the store's call is
    answered, before the caller has run again; the caller ends cancelled (``wait_for``
    over ``shield`` returned the result on Python 3.11 and the cancellation was gone)."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[int] = loop.create_future()

        async def store_call() -> int:
            return await answer

        caller = asyncio.create_task(within(store_call(), 5.0))
        await asyncio.sleep(0)  # the caller waits on the store's call
        answer.set_result(7)
        for _ in range(steps):
            await asyncio.sleep(0)
        assert not caller.done()  # (three steps later it would have its answer)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller

    asyncio.run(scenario())


def test_within_gives_the_result_or_times_out_and_lets_the_work_run_on() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()

        async def quick() -> str:
            return "saved"

        assert await within(quick(), 1.0) == "saved"
        slow_answer: asyncio.Future[str] = loop.create_future()

        async def slow() -> str:
            return await slow_answer

        work = asyncio.ensure_future(slow())
        with pytest.raises(TimeoutError, match=r"did not answer within 0\.01 s"):
            await within(work, 0.01)
        assert not work.done()  # not cancelled: it runs on to its end
        slow_answer.set_result("late")
        assert await work == "late"

        async def failing() -> str:
            raise RuntimeError("disk full")

        with pytest.raises(RuntimeError, match="disk full"):
            await within(failing(), 1.0)

    asyncio.run(scenario())


def test_a_task_that_swallows_a_cancellation_is_cancelled_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``stop_task``: a task that ignores the first cancellation gets another; one that
    ignores every cancellation is logged and left after the patience, never waited on for
    good."""

    async def scenario() -> list[int]:
        swallowed: list[int] = []

        async def swallow_once() -> None:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed.append(1)
            await asyncio.sleep(3600)  # parked again, as the room was on its inbox

        task = asyncio.create_task(swallow_once(), name="swallows-once")
        await asyncio.sleep(0)
        await stop_task(task, patience=5)
        assert task.cancelled()

        stubborn_now = True

        async def stubborn() -> None:
            while stubborn_now:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    swallowed.append(2)

        task = asyncio.create_task(stubborn(), name="stubborn")
        await asyncio.sleep(0)
        await stop_task(task, patience=0.5)
        assert not task.done()
        stubborn_now = False  # (so that the test itself can end)
        task.cancel()
        await asyncio.wait({task})
        return swallowed

    with caplog.at_level(logging.WARNING, logger="dudo.server"):
        swallowed = asyncio.run(scenario())
    assert swallowed[0] == 1 and swallowed.count(2) >= 2
    logged = [getattr(record, "fields", {}) for record in caplog.records]
    assert {"event": "task_would_not_stop", "task": "stubborn"} in logged, logged
