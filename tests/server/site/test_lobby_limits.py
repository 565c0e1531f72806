"""One client cannot close the site to everyone: room creation per address, a share of
the site kept for games, an exact cap, codes that come back, and a guess limit that
blocks the guesser rather than everyone behind the same address."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from starlette.testclient import TestClient

from dudo.rules import Rules
from dudo.server.site.lobby import CODE_ALPHABET, Lobby, SiteLimits
from dudo.server.table import inbox
from dudo.store.base import LogEntry, MemoryStore
from serverkit import FakeClock, app_and_lobby, fast_config

ROOM = {"name": "Ana", "seats": 2}


def test_one_address_can_create_only_a_burst_of_rooms_then_a_few_a_minute() -> None:
    app, holder = app_and_lobby(limits=SiteLimits(creation_burst=5, creations_per_minute=2))
    with TestClient(app) as client:
        statuses = [client.post("/api/rooms", json=ROOM).status_code for _ in range(7)]
        assert statuses == [201] * 5 + [429] * 2
        refused = client.post("/api/rooms", json=ROOM).json()
        assert refused["error"] == "too_many_rooms" and "wait" in refused["message"]
        assert "dudo_room_creations_refused_total 3" in client.get("/metrics").text
        lobby = holder.lobby
        assert lobby is not None
        assert len(lobby.rooms) == 5  # the refusals made nothing
        # Another address is not affected, and this one gets a room again in 30 s.
        other = asyncio.run(_create(lobby, client="203.0.113.9"))
        assert other["seat"] == 0
        now = lobby.creations.clock()
        lobby.creations.clock = lambda: now + 31
        assert client.post("/api/rooms", json=ROOM).status_code == 201


async def _create(lobby: Lobby, client: str) -> dict[str, object]:
    return await lobby.create(
        "Eve", rules=Rules.preset("perudo"), seats=2, bots=[], timer=0, public=False, client=client
    )


def test_lobbies_take_only_part_of_the_site_and_the_cap_is_exact() -> None:
    """Waiting lobbies cannot fill the site, so played games still find room; and many
    creations at once never pass the caps (they are counted before the store is asked)."""

    async def scenario() -> None:
        lobby = Lobby(MemoryStore(), fast_config())
        lobby.configure(SiteLimits(max_rooms=6, max_lobbies=4, creation_burst=1000))
        results = await asyncio.gather(
            *(_create(lobby, client=f"198.51.100.{n}") for n in range(10)), return_exceptions=True
        )
        made = [r for r in results if isinstance(r, dict)]
        refused = [r for r in results if not isinstance(r, dict)]
        assert len(made) == 4 and len(lobby.rooms) == 4
        assert {getattr(error, "code", None) for error in refused} == {"server_full"}
        # Two lobbies become games: the site's other two places are there for them.
        for joined in made[:2]:
            room = lobby.rooms[str(joined["code"])]
            await room.ask(inbox.Join("Bo", None))
            room.status = "playing"  # (how the game starts is not this test's subject)
        more = await asyncio.gather(
            *(_create(lobby, client="192.0.2.1") for _ in range(5)), return_exceptions=True
        )
        assert sum(isinstance(r, dict) for r in more) == 2
        assert len(lobby.rooms) == 6
        await lobby.close()

    asyncio.run(scenario())


def test_a_closed_rooms_code_comes_back_after_the_retention_period() -> None:
    """With every code but one taken by a closed room, creation finds the one free code,
    and once the retention period has passed the closed rooms' codes are free again."""

    async def scenario() -> None:
        clock = FakeClock()
        store = MemoryStore()
        codes = ["".join(letters) for letters in itertools.product(CODE_ALPHABET, repeat=4)]
        for code in codes:
            await store.create_room(code, False, LogEntry(0, 0.0, "created", {}))
            store.closed[code] = clock()
        lobby = Lobby(store, fast_config(), clock=clock, entropy=lambda size: "00" * size)
        lobby.configure(SiteLimits(closed_retention=3600, creation_burst=1000))
        try:
            await _create(lobby, client="x")
        except Exception as error:
            assert getattr(error, "code", None) == "server_full"
        else:
            raise AssertionError("every code is taken: creation must be refused")
        clock.advance(3601)
        joined = await _create(lobby, client="x")
        assert joined["code"] == "AAAA"  # the entropy always picks the first code
        assert [entry.kind for entry in await store.load_log("AAAA")] == ["created", "joined"]
        await lobby.close()

    asyncio.run(scenario())


def test_mistyped_codes_block_the_guesser_not_everyone_behind_the_address() -> None:
    app, holder = app_and_lobby(limits=SiteLimits(guesses_per_client=20, guesses_per_address=50))
    with TestClient(app) as client:
        code = client.post("/api/rooms", json={"name": "Ana", "seats": 4}).json()["code"]
        unknown = next(c * 4 for c in CODE_ALPHABET if c * 4 != code)
        clumsy = {"X-Dudo-Client": "clumsy"}
        statuses = [
            client.get(f"/api/rooms/{unknown}", headers=clumsy).status_code for _ in range(21)
        ]
        assert statuses == [404] * 20 + [429]
        # The guesser is blocked, for real codes too (or a hit would tell it apart) ...
        assert client.get(f"/api/rooms/{code}", headers=clumsy).status_code == 429
        # ... but a friend behind the same address joins the real room.
        friend = {"X-Dudo-Client": "friend"}
        assert client.get(f"/api/rooms/{code}", headers=friend).status_code == 200
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bo"}, headers=friend)
        assert joined.status_code == 200
        # Rotating client ids does not walk the codes: the address has a budget too.
        rotating = [
            client.get(f"/api/rooms/{unknown}", headers={"X-Dudo-Client": f"id{n}"}).status_code
            for n in range(40)
        ]
        assert rotating.count(404) == 30 and rotating[-1] == 429
        assert client.get(f"/api/rooms/{code}", headers=friend).status_code == 429
        lobby = holder.lobby
        assert lobby is not None
        assert lobby.find(code, "another address").code == code


def test_a_locked_room_takes_no_one_by_code_alone() -> None:
    from socketkit import connect

    app, _ = app_and_lobby()
    with TestClient(app) as client:
        created = client.post("/api/rooms", json={"name": "Ana", "seats": 4}).json()
        code = created["code"]
        with connect(client, code, created["token"], "host") as host:
            invite = (host.state or {})["you"]["invite"]
            assert len(invite) == 32
            assert (
                host.reply_to({"type": "configure", "id": "lock", "locked": True})["type"] == "ack"
            )
            refused = client.post(f"/api/rooms/{code}/join", json={"name": "Mallory"})
            assert refused.status_code == 403 and refused.json()["error"] == "locked"
            wrong = client.post(
                f"/api/rooms/{code}/join", json={"name": "Mallory", "invite": "0" * 32}
            )
            assert wrong.status_code == 403
            assert client.get(f"/api/rooms/{code}").json()["locked"] is True
            friend = client.post(f"/api/rooms/{code}/join", json={"name": "Bo", "invite": invite})
            assert friend.status_code == 200
            with connect(client, code, friend.json()["token"], "guest") as guest:
                assert "invite" not in (guest.state or {})["you"]  # only the host has it
            with connect(client, code, None, "watcher") as watcher:
                assert "invite" not in (watcher.state or {})["you"]
                assert invite not in "".join(watcher.texts)
            assert (
                host.reply_to({"type": "configure", "id": "open", "locked": False})["type"] == "ack"
            )
            assert client.post(f"/api/rooms/{code}/join", json={"name": "Cy"}).status_code == 200


def test_a_made_up_forwarded_header_does_not_dodge_the_guess_limit(tmp_path: Path) -> None:
    """uvicorn trusts X-Forwarded-For from loopback unless told otherwise; rotating it once
    gave 27,743 guesses a minute. Only proxies the operator names are believed."""
    import httpx

    from serverkit import server_process, sqlite_url

    limits = {"DUDO_GUESSES_PER_CLIENT": "5", "DUDO_GUESSES_PER_ADDRESS": "5"}
    with server_process(sqlite_url(tmp_path), env=limits) as (base, _):
        statuses = [
            httpx.get(
                f"{base}/api/rooms/AAAA", headers={"X-Forwarded-For": f"203.0.113.{n}"}
            ).status_code
            for n in range(8)
        ]
        assert statuses == [404] * 5 + [429] * 3
    trusted = {**limits, "DUDO_FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with server_process(sqlite_url(tmp_path), env=trusted) as (base, _):
        statuses = [
            httpx.get(
                f"{base}/api/rooms/AAAA", headers={"X-Forwarded-For": f"203.0.113.{n}"}
            ).status_code
            for n in range(8)
        ]
        assert statuses == [404] * 8  # a named proxy's word is taken: eight clients


def test_purge_deletes_closed_rooms_and_keeps_records(tmp_path: Path) -> None:
    import subprocess
    import sys

    from dudo.store import open_store

    database = f"sqlite:///{tmp_path / 'dudo.db'}"

    async def fill() -> None:
        store = open_store(database)
        await store.open()
        await store.create_room("ACDE", False, LogEntry(0, 1.0, "created", {}))
        await store.create_room("FGHJ", False, LogEntry(0, 1.0, "created", {}))
        await store.save_game("g1", "ACDE", {"players": 2})
        await store.close_room("ACDE")
        await store.close()

    asyncio.run(fill())
    done = subprocess.run(
        [sys.executable, "-m", "dudo", "purge", "--database", database, "--older-than", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("purged 1 closed room ")

    async def check() -> None:
        store = open_store(database)
        await store.open()
        assert await store.load_log("ACDE") == []
        assert len(await store.load_log("FGHJ")) == 1
        assert await store.load_game("g1") == {"players": 2}
        await store.close()

    asyncio.run(check())
    bad = subprocess.run(
        [sys.executable, "-m", "dudo", "purge", "--database", "nope://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_the_invite_key_changes_when_a_player_is_removed_or_the_room_is_locked_again() -> None:
    """A removed player's link stops working; so does any link shared while the room was
    open, once it is locked again. The host's state carries each new key."""
    from socketkit import connect

    app, _ = app_and_lobby()
    with TestClient(app) as client:
        created = client.post("/api/rooms", json={"name": "Ana", "seats": 4}).json()
        code = created["code"]

        def join(name: str, invite: str | None) -> int:
            body = {"name": name} if invite is None else {"name": name, "invite": invite}
            answer = client.post(f"/api/rooms/{code}/join", json=body)
            return answer.status_code

        with connect(client, code, created["token"], "host") as host:
            first = (host.state or {})["you"]["invite"]
            # Locking the first time keeps the key: the link the host already shared works.
            assert (
                host.reply_to({"type": "configure", "id": "lock", "locked": True})["type"] == "ack"
            )
            assert host.wait_for(lambda m: m["room"]["locked"])["you"]["invite"] == first
            assert join("Bo", first) == 200
            version = host.ping()
            assert host.reply_to({"type": "remove", "id": "rm", "seat": 1})["type"] == "ack"
            second = host.settle(version + 1)["you"]["invite"]
            assert len(second) == 32 and second != first
            assert join("Bo", first) == 403  # the removed player's link is dead
            assert join("Bo", second) == 200  # the new link works
            # Unlocked, then locked again: a fresh key.
            assert (
                host.reply_to({"type": "configure", "id": "open", "locked": False})["type"] == "ack"
            )
            assert join("Cy", None) == 200
            version = host.ping()
            assert (
                host.reply_to({"type": "configure", "id": "relock", "locked": True})["type"]
                == "ack"
            )
            third = host.settle(version + 1)["you"]["invite"]
            assert third not in (first, second)
            assert join("Di", second) == 403
            assert join("Di", third) == 200


def test_wrong_invite_keys_count_against_the_guess_limit() -> None:
    from socketkit import connect

    app, _ = app_and_lobby(limits=SiteLimits(guesses_per_client=5, guesses_per_address=50))
    with TestClient(app) as client:
        created = client.post("/api/rooms", json={"name": "Ana", "seats": 4}).json()
        code = created["code"]
        with connect(client, code, created["token"], "host") as host:
            invite = (host.state or {})["you"]["invite"]
            assert (
                host.reply_to({"type": "configure", "id": "lock", "locked": True})["type"] == "ack"
            )
        guesser = {"X-Dudo-Client": "guesser"}
        keys = ["0" * 32, "é" * 32, "1" * 64, "x", "2" * 32, "3" * 32, invite]
        statuses = [
            client.post(
                f"/api/rooms/{code}/join", headers=guesser, json={"name": "Mallory", "invite": key}
            ).status_code
            for key in keys
        ]
        # Five wrong keys (a non-ASCII one a clean 403 too), then blocked: even the right
        # key, so a hit cannot be told apart.
        assert statuses == [403] * 5 + [429] * 2
        # Asking without a key is not a guess; someone else with the key still gets in.
        assert (
            client.post(
                f"/api/rooms/{code}/join", headers={"X-Dudo-Client": "friend"}, json={"name": "Bo"}
            ).status_code
            == 403
        )
        assert (
            client.post(
                f"/api/rooms/{code}/join",
                headers={"X-Dudo-Client": "friend"},
                json={"name": "Bo", "invite": invite},
            ).status_code
            == 200
        )


def test_a_crowd_of_addresses_cannot_fill_the_site() -> None:
    """220 addresses x 11 creations (loopback 127.0.x.y standing in for a botnet): once
    they reached the 2,000-lobby cap in 15 s and a fresh visitor got 503 server_full. Now
    a network (a /24 here) holds at most its share of the lobbies, and near the cap the
    unattended lobbies (nobody at them, nobody but the creator ever sat down) give way
    first, so a fresh address still creates a room and joins a quick game, and a lobby
    whose host is there, or that a friend joined, never goes."""
    from dudo.server.table.connection import Connection

    async def scenario() -> None:
        clock = FakeClock()
        lobby = Lobby(MemoryStore(), fast_config(), clock=clock)
        limits = SiteLimits()
        lobby.configure(limits)
        lobby.creations.clock = clock
        # Two real lobbies first: a host waiting at the table, and one a friend joined.
        waiting = await _create(lobby, client="198.51.100.7")
        here = lobby.rooms[str(waiting["code"])]
        here.audience.connect(Connection(lambda text: None, 0))
        joined = await _create(lobby, client="198.51.100.8")
        await lobby.rooms[str(joined["code"])].ask(inbox.Join("Bo", None))

        async def crowd(addresses: list[str]) -> list[object]:
            results: list[object] = []
            for address in addresses:
                for _ in range(11):
                    clock.advance(15.3 / 2420)  # the audit's pace: 2,420 tries in 15.3 s
                    try:
                        results.append(await _create(lobby, client=address))
                    except Exception as error:
                        results.append(getattr(error, "code", error))
            return results

        # One /24: it gets its share (5% of 2,000) and no more.
        one_network = await crowd([f"127.0.0.{n}" for n in range(1, 221)])
        share = int(limits.max_lobbies * limits.group_share)
        assert sum(isinstance(r, dict) for r in one_network) == share
        assert set(r for r in one_network if not isinstance(r, dict)) == {"too_many_rooms"}
        # 220 networks: each address its burst of 10, the site reaches its cap, and the
        # crowd's own unattended lobbies give way to newer ones.
        many = await crowd([f"127.0.{n}.1" for n in range(1, 221)])
        assert sum(isinstance(r, dict) for r in many) == 220 * limits.creation_burst
        lobbies = [room for room in lobby.rooms.values() if room.status == "lobby"]
        assert len(lobbies) == limits.max_lobbies
        assert lobby.evicted > 0
        # The real lobbies are still there (their hosts' activity is old too); a fresh
        # address creates a room and plays.
        assert here.code in lobby.rooms and str(joined["code"]) in lobby.rooms
        fresh = await _create(lobby, client="127.0.250.1")
        assert fresh["seat"] == 0 and str(fresh["code"]) in lobby.rooms
        quick = await lobby.quick("Zoe", client="127.0.251.1")
        assert quick["seat"] == 0 and lobby.rooms[str(quick["code"])].quick
        await lobby.close()

    asyncio.run(scenario())


def test_networks_group_addresses_by_prefix() -> None:
    from dudo.server.guard.networks import network_of

    assert network_of("203.0.113.77") == "203.0.113.0/24"
    assert network_of("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert network_of("::ffff:198.51.100.9") == "198.51.100.0/24"
    assert network_of("203.0.113.77", ipv4_prefix=32) == "203.0.113.77/32"
    assert network_of("2001:db8:1:2:aaaa::1", ipv6_prefix=48) == "2001:db8:1::/48"
    assert network_of("testclient") == "testclient"


def test_network_limits_are_read_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from dudo.server.web.app import ServerSettings

    monkeypatch.setenv("DUDO_IPV4_PREFIX", "16")
    monkeypatch.setenv("DUDO_IPV6_PREFIX", "56")
    monkeypatch.setenv("DUDO_GROUP_SHARE", "0.2")
    limits = ServerSettings.from_env().limits
    assert (limits.ipv4_prefix, limits.ipv6_prefix, limits.group_share) == (16, 56, 0.2)
    monkeypatch.setenv("DUDO_IPV4_PREFIX", "33")
    with pytest.raises(ValueError, match="DUDO_IPV4_PREFIX"):
        ServerSettings.from_env()
