"""The profile API (dudo.profiles.desk) wired to this server: its book and store, the rooms
API's body reader, and the lobby's guess limit, which wrong profile keys count against as
wrong room codes do."""

from __future__ import annotations

from starlette.requests import Request

from dudo.profiles.desk import CreationLimit, ProfileDesk
from dudo.server.table.names import clean_name
from dudo.server.web.callers import client_id_of, client_of
from dudo.server.web.rooms import read_json
from dudo.server.web.state import Server, server_of


async def guess_blocked(request: Request) -> bool:
    """Whether the client has guessed too many keys (or codes) lately."""
    found = server_of(request).lobby
    client, client_id = client_of(request), client_id_of(request)
    return await found.guess_blocked(client, client_id)


async def guess_missed(request: Request) -> None:
    await server_of(request).lobby.wrong_key(client_of(request), client_id_of(request))


def profile_desk(server: Server) -> ProfileDesk:
    """The profile routes' desk, reading the book and the store of ``server`` once open."""
    return ProfileDesk(
        book=lambda: server.live.book,
        load_game=lambda game_id: server.live.store.load_game(game_id),
        read_json=read_json,
        client_of=client_of,
        guess_blocked=guess_blocked,
        guess_missed=guess_missed,
        clean_name=clean_name,
        creations=CreationLimit(),
    )
