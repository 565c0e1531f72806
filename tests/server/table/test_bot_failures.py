"""A bot that raises or answers what it may not does not stop its room: the failure is one
log line naming the room, the seat and what the bot did, and the plainest move stands in."""

from __future__ import annotations

import asyncio
import logging

import pytest

from dudo.game import Action
from dudo.rules import Rules
from dudo.server.protocol import parse_client_message
from dudo.server.table import inbox
from dudo.server.table.connection import Connection
from dudo.server.table.room import Room
from dudo.store.base import MemoryStore
from dudo.view import SeatView
from serverkit import CountingEntropy, FakeClock, fast_config


class Boom:
    name = "Boom"

    def act(self, view: SeatView) -> Action | None:
        raise ValueError("boom")


class Stringy:
    name = "Stringy"

    def act(self, view: SeatView) -> Action | None:
        return "dudo" if view.my_turn else None  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("bot", "said"),
    [
        (Boom(), "bot Boom at seat 1 raised ValueError: boom"),
        (Stringy(), "bot Stringy at seat 1 returned 'dudo', which is not an action"),
    ],
)
def test_a_failing_bot_is_logged_in_one_line_and_the_game_goes_on(
    bot: object, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def test() -> None:
        room = await Room.create(
            "BOTS",
            MemoryStore(),
            fast_config(),
            rules=Rules.preset("perudo"),
            seats=3,
            bots=[None, "easy", "easy"],
            timer=0,
            public=False,
            clock=FakeClock(),
            entropy=CountingEntropy(),
        )
        assert room is not None
        room.start_task()
        joined = await room.ask(inbox.Join("Ana"))
        room.state.seats[1].bot = bot  # type: ignore[assignment]

        async def keep(text: str) -> None:
            pass

        connection = Connection(keep, joined["seat"])
        room.tell(inbox.Connect(connection))
        try:
            for message in ('{"type":"start","id":"go"}', '{"type":"leave","id":"bye"}'):
                room.tell(inbox.Deliver(connection, parse_client_message(message)))
                await room.ask(inbox.Describe())
            # Bots play every seat now, the plainest move standing in for seat 1's; a busy
            # machine may take a while over the whole game.
            patience = asyncio.get_running_loop().time() + 120
            while room.state.status != "over" and asyncio.get_running_loop().time() < patience:
                await asyncio.sleep(0.01)
            assert room.state.status == "over"
        finally:
            await room.stop()  # else a failed wait would leave the room's loop running

    with caplog.at_level(logging.WARNING, logger="dudo.room"):
        asyncio.run(test())
    failures = [record for record in caplog.records if record.getMessage() == "bot_failed"]
    assert failures, "the failing bot was never logged"
    fields = failures[0].fields  # type: ignore[attr-defined]
    assert fields["room"] == "BOTS" and fields["seat"] == 1
    assert fields["error"].startswith(said) and "\n" not in fields["error"]
    assert not [record for record in caplog.records if record.getMessage() == "room error"]
