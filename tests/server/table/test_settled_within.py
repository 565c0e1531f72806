"""The journal's wait for a write (dudo.server.outage.settled_within): it ends when the
write does or when its patience runs out, and never cancels the write itself (a write that
timed out may still land: the journal keeps it as in flight)."""

from __future__ import annotations

import asyncio

import pytest

from dudo.server.outage import settled_within


def test_a_write_that_lands_in_time_is_settled() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        write: asyncio.Future[None] = loop.create_future()
        loop.call_soon(write.set_result, None)
        assert await settled_within(write, 5.0)
        done: asyncio.Future[None] = loop.create_future()
        done.set_result(None)
        assert await settled_within(done, 0.0)  # already done: no wait at all

    asyncio.run(scenario())


def test_a_write_that_fails_is_settled_and_keeps_its_error() -> None:
    async def scenario() -> None:
        write: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        write.set_exception(RuntimeError("disk full"))
        assert await settled_within(write, 1.0)
        with pytest.raises(RuntimeError, match="disk full"):
            write.result()

    asyncio.run(scenario())


def test_a_slow_write_times_out_but_goes_on() -> None:
    async def scenario() -> None:
        write: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        assert not await settled_within(write, 0.01)
        assert not write.done()  # not cancelled: it may still land
        write.set_result(None)

    asyncio.run(scenario())


def test_cancelling_the_wait_leaves_the_write_alone() -> None:
    async def scenario() -> None:
        write: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiting = asyncio.ensure_future(settled_within(write, 10.0))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not write.done()

    asyncio.run(scenario())
