"""Per-address and per-seat limits on sockets and messages (dudo.server.guard.gate), and the seat
token carried as a WebSocket subprotocol instead of in the URL."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from dudo.server.guard.gate import Buckets, Gate, GateLimits
from serverkit import FakeClock, app_and_lobby, server_process, sqlite_url
from socketkit import Sock, connect, seat_table


def test_buckets_refill_at_their_rate() -> None:
    clock = FakeClock(0.0)
    buckets = Buckets(rate=2.0, burst=3, clock=clock)
    assert [buckets.take("a") for _ in range(4)] == [True, True, True, False]
    assert buckets.take("b")  # another key has its own bucket
    clock.advance(0.5)
    assert buckets.take("a") and not buckets.take("a")


def test_the_gate_counts_open_sockets_and_new_connections_per_address() -> None:
    clock = FakeClock(0.0)
    gate = Gate(
        GateLimits(sockets_per_address=3, connects_per_second=1, connect_burst=5), clock=clock
    )
    assert [gate.admit("1.2.3.4") for _ in range(3)] == [None] * 3
    full = gate.admit("1.2.3.4")
    assert full is not None and full[0] == "too_many_sockets"
    assert gate.admit("5.6.7.8") is None  # others are not affected
    gate.release("1.2.3.4")
    assert gate.admit("1.2.3.4") is None  # a place came free (the 4th new connection)
    for _ in range(3):
        gate.release("1.2.3.4")
    assert gate.admit("1.2.3.4") is None  # the 5th: the burst is spent now
    refused = gate.admit("1.2.3.4")
    assert refused is not None and refused[0] == "too_many_connects"
    clock.advance(1.0)
    assert gate.admit("1.2.3.4") is None
    assert gate.refused_sockets == 2


def test_one_address_cannot_open_more_sockets_than_its_share() -> None:
    app, _ = app_and_lobby(gate=GateLimits(sockets_per_address=4, connect_burst=100))
    with TestClient(app) as client:
        table = seat_table(client, 2, humans=1)
        with contextlib.ExitStack() as stack:
            for n in range(4):
                stack.enter_context(connect(client, table.code, None, f"w{n}"))
            # Refused in the handshake: HTTP 429 with the error shape, no socket at all.
            with (
                pytest.raises(WebSocketDenialResponse) as refused,
                client.websocket_connect(f"/ws/{table.code}"),
            ):
                pass
            assert refused.value.status_code == 429
            assert refused.value.json()["error"] == "too_many_sockets"
            assert "dudo_sockets_refused_total 1" in client.get("/metrics").text
        # Closed sockets give their places back.
        with connect(client, table.code, table.tokens[0], "host") as host:
            assert host.state is not None


def test_a_seats_message_budget_is_shared_by_all_its_sockets() -> None:
    app, _ = app_and_lobby(
        gate=GateLimits(
            messages_per_second=0.001,
            message_burst=4,
            address_message_burst=1000,
            sockets_per_address=100,
            connect_burst=100,
        )
    )
    with TestClient(app) as client:
        table = seat_table(client, 2, humans=1)
        with (
            connect(client, table.code, table.tokens[0], "one") as one,
            connect(client, table.code, table.tokens[0], "two") as two,
        ):
            answers = []
            for sock in (one, two, one, two, one, two):
                answers.append(sock.reply_to({"type": "ping"})["type"])
            assert answers == ["pong"] * 4 + ["error"] * 2
            # A spectator's budget is its own.
            with connect(client, table.code, None, "watcher") as watcher:
                assert watcher.reply_to({"type": "ping"})["type"] == "pong"


def test_the_seat_token_travels_as_a_subprotocol() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 2, humans=1)
        offered = ["dudo.v1", f"token.{table.tokens[0]}"]
        with client.websocket_connect(f"/ws/{table.code}", subprotocols=offered) as session:
            assert session.accepted_subprotocol == "dudo.v1"
            sock = Sock(session, "subprotocol")
            state = sock.recv()
            assert state["you"]["seat"] == 0 and state["you"]["host"] is True
        bad = ["dudo.v1", "token.not-a-token"]
        with client.websocket_connect(f"/ws/{table.code}", subprotocols=bad) as session:
            sock = Sock(session, "bad token")
            assert sock.recv()["code"] == "bad_token"
        # Without a token it is a spectator's socket.
        with client.websocket_connect(f"/ws/{table.code}", subprotocols=["dudo.v1"]) as session:
            assert Sock(session, "watcher").recv()["you"]["role"] == "spectator"


def test_new_connections_beyond_the_accept_budget_are_dropped() -> None:
    clock = FakeClock(0.0)
    gate = Gate(GateLimits(accepts_per_second=2, accept_burst=3), clock=clock)
    assert [gate.accept("1.2.3.4") for _ in range(5)] == [True] * 3 + [False] * 2
    assert gate.accept("5.6.7.8")  # another address is not slowed
    assert gate.dropped_connections == 2
    clock.advance(0.5)
    assert gate.accept("1.2.3.4") and not gate.accept("1.2.3.4")


async def _handshake(port: int) -> bytes:
    """Open a TCP connection, ask for a WebSocket, and return what came back (b'' if the
    server closed the connection without answering)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            b"GET /ws/QQQQ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n"
        )
        await writer.drain()
        return await asyncio.wait_for(reader.read(4096), 10)
    except (ConnectionError, OSError):
        return b""
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


def test_a_flood_of_connections_is_dropped_as_it_is_accepted(tmp_path: Path) -> None:
    """A real server: 300 connections at once from one address. The first ones are heard
    (answered, or refused with a reason); the rest are closed as they are accepted,
    before any HTTP is read, and counted; the address may connect again a moment later."""
    limits = {
        "DUDO_ACCEPT_BURST": "40",
        "DUDO_ACCEPTS_PER_SECOND": "20",
        "DUDO_CONNECT_BURST": "10",
        "DUDO_CONNECTS_PER_SECOND": "5",
    }
    with server_process(sqlite_url(tmp_path), env=limits) as (base, _):
        port = int(base.rsplit(":", 1)[1])

        async def flood() -> list[bytes]:
            return list(await asyncio.gather(*(_handshake(port) for _ in range(300))))

        answers = asyncio.run(flood())
        dropped = sum(1 for answer in answers if not answer)
        refused = [answer for answer in answers if answer.startswith(b"HTTP/1.1 429")]
        assert dropped >= 300 - 40 - 20  # beyond the budget (and what refilled meanwhile)
        assert refused and all(
            b'"too_many_connects"' in answer or b'"too_many_sockets"' in answer
            for answer in refused
        )
        time.sleep(1.0)  # the budget refills
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
        metrics = httpx.get(f"{base}/metrics", timeout=5).text
        counted = next(
            int(line.split()[1])
            for line in metrics.splitlines()
            if line.startswith("dudo_connections_dropped_total ")
        )
        assert counted == dropped


def test_behind_a_proxy_connections_are_not_dropped_by_the_proxys_address(tmp_path: Path) -> None:
    """With --forwarded-allow-ips every client arrives from the proxy's address: dropping
    by that address would drop everyone, so the accept budget is not applied there."""
    limits = {
        "DUDO_ACCEPT_BURST": "5",
        "DUDO_ACCEPTS_PER_SECOND": "1",
        "DUDO_FORWARDED_ALLOW_IPS": "127.0.0.1",
    }
    with server_process(sqlite_url(tmp_path), env=limits) as (base, _):
        answers = [httpx.get(f"{base}/healthz", timeout=5) for _ in range(20)]
        assert all(answer.status_code == 200 for answer in answers)
