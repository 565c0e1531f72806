"""Helpers for the profile tests: devices with their own secrets, and games played to
the end through a real app (the players connect, the host starts, they leave, and the
server's stand-in bots finish the game for them: grace 0)."""

from __future__ import annotations

import secrets
import time
from typing import Any

from starlette.testclient import TestClient

from socketkit import connect


def new_secret() -> str:
    """What a browser makes on its first visit (32 random bytes, hex)."""
    return secrets.token_hex(32)


def register(client: TestClient, secret: str, name: str = "Ana") -> dict[str, Any]:
    answer = client.post("/api/profile", json={"secret": secret, "name": name})
    assert answer.status_code in (200, 201), answer.text
    profile: dict[str, Any] = answer.json()["profile"]
    return profile


def me(client: TestClient, secret: str) -> dict[str, Any]:
    answer = client.post("/api/profile/me", json={"secret": secret})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def wait_over(
    client: TestClient, code: str, game: int, timeout: float = 60.0, entered: bool = True
) -> None:
    """Until the room's ``game``-th game is over and (``entered``) in the profile book: a
    moment after the game-over state goes out, the room's series counts it. (The series
    is asked only once the game is over: a room without one counts as a guess.)"""
    end = time.monotonic() + timeout
    while True:
        room = client.get(f"/api/rooms/{code}").json()
        if room["status"] == "over" and room["game"] >= game:
            break
        assert time.monotonic() < end, f"game {game} of room {code} did not end"
        time.sleep(0.02)
    while entered and client.get(f"/api/rooms/{code}/series").json()["games"] < game:
        assert time.monotonic() < end, f"game {game} of room {code} was not entered"
        time.sleep(0.02)


def play_table(
    client: TestClient,
    players: list[tuple[str, str | None]],
    bots: int = 1,
    games: int = 1,
    rules: dict[str, Any] | None = None,
    entered: bool = True,
) -> tuple[str, list[str]]:
    """A room with ``players`` ((name, profile secret or None); the first is the host)
    and ``bots`` normal bots, ``games`` games played to the end (the host asks for each
    rematch); returns the room code and the seat tokens."""
    seats = len(players) + bots
    host_name, host_secret = players[0]
    body: dict[str, Any] = {
        "name": host_name,
        "seats": seats,
        "bots": [None] * len(players) + ["normal"] * bots,
        "rules": rules or {"preset": "perudo"},
    }
    if host_secret:
        body["profile"] = host_secret
    created = client.post("/api/rooms", json=body)
    assert created.status_code == 201, created.text
    code, tokens = created.json()["code"], [created.json()["token"]]
    for name, secret in players[1:]:
        join: dict[str, Any] = {"name": name}
        if secret:
            join["profile"] = secret
        joined = client.post(f"/api/rooms/{code}/join", json=join)
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    for number in range(1, games + 1):
        sockets = [connect(client, code, token) for token in tokens]
        opened = [context.__enter__() for context in sockets]
        host = opened[0]
        reply = host.reply_to({"type": "start" if number == 1 else "rematch", "id": f"go{number}"})
        assert reply["type"] == "ack", reply
        for context in sockets:  # everyone leaves: stand-ins play (grace 0)
            context.__exit__(None, None, None)
        wait_over(client, code, number, entered=entered)
    return code, tokens
