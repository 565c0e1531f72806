"""Programs with profiles (dudo.client) against a real server process: two programs play a
whole game with their own bots, each seat counts for its profile, the game is rated once,
and the stats agree with the finished game's public record."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from dudo.bots import make_bot
from dudo.client import Client, ClientError, new_profile_secret
from serverkit import server_process, sqlite_url, stored_record


async def play_two(base: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    ana, ben = new_profile_secret(), new_profile_secret()
    async with Client(base, profile=ana) as first, Client(base, profile=ben) as second:
        await first.register_profile("Ana")
        await second.register_profile("Ben")
        seat = await first.create_room("Ana", seats=3, bots=[None, None, "easy"])
        other = await second.join(seat.code, "Ben")
        async with first.table(seat) as host, second.table(other) as guest:
            await host.start()
            winners, _ = await asyncio.gather(
                host.play(make_bot("normal", seed=1)), guest.play(make_bot("normal", seed=2))
            )
            game_id = host.game_id
        assert game_id is not None
        record = await stored_record(first, game_id)
        # The record is entered a moment after the game-over state goes out; a profile is
        # read (its rating) before its stats, so one read may fall across the entry.
        for _ in range(50):
            mine = [await first.my_profile(), await second.my_profile()]
            if all(
                data["stats"]["total"]["games"] and data["profile"]["rating"]["games"]
                for data in mine
            ):
                break
            await asyncio.sleep(0.1)
        record["winners"] = winners
        return mine, record


def test_two_programs_with_profiles_are_counted_and_rated(tmp_path: Path) -> None:
    with server_process(sqlite_url(tmp_path)) as (base, _process):
        (ana, ben), record = asyncio.run(play_two(base))
    for seat, data in enumerate((ana, ben)):
        total = data["stats"]["total"]
        assert total["games"] == 1
        assert total["wins"] == int(seat in record["winners"])
        assert total["rounds"] == sum(bool(r["dice"][seat]) for r in record["rounds"])
        assert data["profile"]["rating"]["games"] == 1
        assert data["stats"]["timeline"][0]["game_id"] == record["game_id"]
    assert "profile" not in record


def test_a_program_without_a_profile_secret_is_told_so() -> None:
    async def ask() -> None:
        async with Client("http://127.0.0.1:9") as client:
            await client.register_profile("Robo")

    try:
        asyncio.run(ask())
    except ClientError as error:
        assert error.code == "no_profile"
    else:
        raise AssertionError("no error")


def test_asking_for_my_profile_without_a_profile_secret_is_told_so() -> None:
    # It asked the server with an empty secret, which answered a bad_request quoting the
    # pattern a secret must match; register_profile() said what to do.
    async def ask() -> None:
        async with Client("http://127.0.0.1:9") as client:
            await client.my_profile()

    try:
        asyncio.run(ask())
    except ClientError as error:
        assert error.code == "no_profile"
        assert error.message == "make the Client with profile=new_profile_secret()"
    else:
        raise AssertionError("no error")
