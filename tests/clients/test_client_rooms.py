"""The Python client in rooms of a real ``dudo serve``: a locked room taken with its invite
key or the host's link, a Common Hand bid, and a seat ticket that keeps its token out of
what is printed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dudo.client import Client, ClientError, SeatTicket, room_and_invite
from dudo.hands import Hand
from serverkit import server_process, sqlite_url

COMMON_HAND = {"preset": "common-hand", "first_opener": "host", "starting_dice": 3}


def test_a_locked_room_takes_a_program_with_its_invite_key_or_the_hosts_link(
    tmp_path: Path,
) -> None:
    async def run(base: str) -> None:
        async with Client(base) as client:
            seat = await client.create_room("Ana", seats=4)
            async with client.table(seat) as host:
                await host.configure(locked=True)
                state = await host.wait_for(lambda state: bool(state["you"].get("invite")))
                key = state["you"]["invite"]
            with pytest.raises(ClientError) as refused:
                await client.join(seat.code, "Ben")
            assert refused.value.code == "locked"
            ben = await client.join(seat.code, "Ben", invite=key)
            cy = await client.join(f"{base}/r/{seat.code}?invite={key}", "Cy")
            assert (ben.code, ben.seat, cy.code, cy.seat) == (seat.code, 1, seat.code, 2)

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))


def test_a_room_link_is_taken_apart_into_its_code_and_key() -> None:
    assert room_and_invite("ABCD", None) == ("ABCD", None)
    assert room_and_invite("ABCD", "k") == ("ABCD", "k")
    assert room_and_invite("https://dudo.example/r/ABCD?invite=k-1", None) == ("ABCD", "k-1")
    assert room_and_invite("http://127.0.0.1:8000/r/ABCD", "k") == ("ABCD", "k")
    assert room_and_invite("https://dudo.example/r/ABCD?invite=k", "k") == ("ABCD", "k")
    with pytest.raises(ValueError, match="another invite key than the one given"):
        room_and_invite("https://dudo.example/r/ABCD?invite=k", "other")
    with pytest.raises(ValueError, match="neither a room code nor a room's link"):
        room_and_invite("https://dudo.example/rooms", None)


def test_a_program_bids_a_hand_at_a_common_hand_table(tmp_path: Path) -> None:
    async def run(base: str) -> None:
        async with Client(base) as client:
            seat = await client.create_room(
                "Robo", rules=COMMON_HAND, seats=2, bots=[None, "normal"]
            )
            async with client.table(seat) as table:
                await table.start()
                await table.wait_for(
                    lambda state: (
                        bool(state.get("game"))
                        and state["game"]["phase"] == "bidding"
                        and state["game"]["turn"] == seat.seat
                    )
                )
                reply = await table.bid(Hand.parse("pair of 3s"))
                assert reply["type"] == "ack", reply
                state = await table.wait_for(lambda state: bool(state["game"]["bids"]))
                assert state["game"]["bids"][0] == [seat.seat, {"hand": "pair", "faces": [3]}]
                for wrong in ((Hand.parse("pair of 4s"), 4), (4,)):
                    with pytest.raises(TypeError, match=r"bid\(quantity, face\) or bid\(hand\)"):
                        await table.bid(*wrong)  # type: ignore[arg-type]

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))


def test_a_seat_ticket_keeps_its_token_out_of_what_is_printed() -> None:
    ticket = SeatTicket("ABCD", 1, "8RbYuTh8NxKFKbONLY8uFvVo4qfWCR-5", "Ben")
    for shown in (repr(ticket), str(ticket), f"{ticket}", repr([ticket])):
        assert "8RbYuTh8" not in shown
        assert "ABCD" in shown and "Ben" in shown and "seat=1" in shown
    assert ticket.token == "8RbYuTh8NxKFKbONLY8uFvVo4qfWCR-5"


def test_a_program_names_its_rooms_bots_in_a_language(tmp_path: Path) -> None:
    """``lang`` on create_room and quick names the bots as the browser's rooms do (Uncle
    Bo is Onkel Bo at a German table); a language the server lacks is its clear refusal."""
    bots: list[str | None] = [None, None, None, None, "easy"]  # seat 4's persona: Uncle Bo

    async def run(base: str) -> None:
        async with Client(base) as client:
            names = []
            for lang in (None, "de", "es"):
                ticket = await client.create_room("Ana", seats=5, bots=bots, lang=lang)
                names.append((await client.room(ticket.code))["seats"][4]["name"])
            assert names == ["Uncle Bo", "Onkel Bo", "Tío Bo"]
            quick = await client.quick("Ana", lang="de")
            assert quick.name == "Ana"
            with pytest.raises(ClientError) as refused:
                await client.create_room("Ana", seats=2, lang="fr")
            assert refused.value.code == "bad_request" and "lang" in str(refused.value)

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))
