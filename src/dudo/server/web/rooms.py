"""The rooms API: create a room, join one, a quick game, a room's summary and its QR code,
the public rooms, and a finished game's record.

Transport only: each endpoint reads and checks the body, hands the request to the lobby or
the room's actor (or relays it to the cluster node that holds the room), and maps a
refusal to its status: only a room's actor changes a room (docs/architecture.md).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from dudo.printable import clipped
from dudo.profiles.desk import SECRET_PATTERN, key_hash
from dudo.rules import Rules, RulesError
from dudo.rules_text import LANGUAGES
from dudo.server.cluster.relay import PROFILE_HEADER
from dudo.server.protocol import MAX_MESSAGE_BYTES
from dudo.server.site.lobby import Elsewhere
from dudo.server.table import inbox
from dudo.server.table.names import clean_name
from dudo.server.table.room import Room, RoomError
from dudo.server.web.callers import client_id_of, client_of, own_origin, relayed
from dudo.server.web.share import clean_origin, qr_svg, share_link
from dudo.server.web.state import server_of

Level = Annotated[str, Field(pattern="^(easy|normal|hard)$")]
# The page's language, for the names of the bots of a room it makes (dudo.rules_text).
Lang = Annotated[str, Field(pattern=f"^({'|'.join(LANGUAGES)})$")]
ProfileSecret = Annotated[str, Field(pattern=SECRET_PATTERN)]


class CreateRoom(BaseModel):
    # strict: a "30" or a 4.0 is refused by name, as on the table's socket, not converted
    model_config = ConfigDict(extra="forbid", strict=True)
    name: Annotated[str, Field(min_length=1, max_length=64)]
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "perudo"})
    seats: Annotated[int, Field(ge=2, le=6)] = 4
    bots: Annotated[list[Level | None], Field(max_length=6)] = Field(default_factory=list)
    timer: Annotated[int, Field(ge=0, le=600)] = 0
    public: bool = False
    show_lost_dice: bool = True  # a display option: dice lost so far, drawn greyed
    lang: Lang = "en"  # the host's language: the bots' names read naturally in it
    profile: ProfileSecret | None = None  # this device's profile secret (dudo.profiles)

    @model_validator(mode="after")
    def _bots_fit_the_seats(self) -> CreateRoom:
        if len(self.bots) > self.seats:
            raise ValueError(f"bots lists {len(self.bots)} entries for {self.seats} seats")
        return self


class JoinRoom(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: Annotated[str, Field(min_length=1, max_length=64)]
    invite: Annotated[str, Field(max_length=64)] | None = None  # for a locked room
    profile: ProfileSecret | None = None


class QuickGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: Annotated[str, Field(min_length=1, max_length=64)]
    rules: dict[str, Any] | None = None  # house rules; players are matched by them
    lang: Lang = "en"  # for a new table's bots' names, as CreateRoom's
    profile: ProfileSecret | None = None


def bad_settings(error: ValueError) -> JSONResponse:
    """Settings a room cannot have: rules the engine refuses are ``bad_rules`` naming the
    option, as the table's ``configure`` says it; anything else ``bad_request``."""
    code = "bad_rules" if isinstance(error, RulesError) else "bad_request"
    return JSONResponse({"error": code, "message": str(error)}, 400)


def refused(error: RoomError) -> JSONResponse:
    """A room's (or the lobby's) refusal as the JSON error shape, with its status."""
    status = {
        "no_room": 404,
        "too_many_guesses": 429,
        "full": 409,
        "started": 409,
        "server_full": 503,
        "too_large": 413,
        "too_many_rooms": 429,
        "locked": 403,
        "unsupported_media_type": 415,
        "moved": 503,
        "unavailable": 503,
    }.get(error.code, 400)
    headers = {"Retry-After": "1"} if error.code == "unavailable" else None
    return JSONResponse(
        {"error": error.code, "message": str(error)}, status_code=status, headers=headers
    )


async def read_json(request: Request, model: type[BaseModel]) -> Any:
    """The body as ``model``: JSON (by Content-Type: a form cannot send it from another
    site), read only up to the size limit (a bigger one is refused as soon as that is
    known, from Content-Length or the stream, and the rest is never read)."""
    body = await read_body(request)
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(clipped(str(part)) for part in first["loc"]) or "body"
        raise RoomError("bad_request", f"{where}: {first['msg']}") from None


async def read_body(request: Request) -> bytes:
    """A JSON request's body, up to the size limit (see read_json)."""
    too_large = RoomError("too_large", f"requests are limited to {MAX_MESSAGE_BYTES} bytes")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise RoomError("bad_request", "Content-Length is not a number")
        if int(declared) > MAX_MESSAGE_BYTES:
            raise too_large
    media_type = request.headers.get("content-type", "").partition(";")[0]
    if media_type.strip().lower() != "application/json":
        raise RoomError(
            "unsupported_media_type", "send the body as JSON, with Content-Type: application/json"
        )
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_MESSAGE_BYTES:
                raise too_large
    except ClientDisconnect:
        raise RoomError("bad_request", "the request ended before its body") from None
    return bytes(body)


async def locate(request: HTTPConnection) -> Room | Elsewhere:
    """The room a request names: a Room here, or Elsewhere (another node holds it)."""
    return await server_of(request).lobby.locate(
        request.path_params["code"],
        client_of(request),
        client_id_of(request),
        relayed=relayed(request),
    )


async def relay_http(request: Request, where: Elsewhere, body: bytes | None) -> Response:
    relay = server_of(request).live.relay
    assert relay is not None  # only a cluster node finds a room elsewhere
    query = f"?{request.url.query}" if request.url.query else ""
    return await relay.forward(
        where.address,
        request.method,
        request.url.path + query,
        body,
        client_of(request),
        client_id_of(request),
    )


async def profile_of(request: Request, secret: str | None) -> str | None:
    """The public id of the profile a join names by its secret; an unknown secret
    counts as a guess and the seat is taken without a profile."""
    if secret is None:
        return None
    found = await server_of(request).live.book.by_key(key_hash(secret))
    if found is None:
        await server_of(request).lobby.wrong_key(client_of(request), client_id_of(request))
        return None
    return str(found.id)


async def create_room(request: Request) -> Response:
    try:
        body: CreateRoom = await read_json(request, CreateRoom)
        name = clean_name(body.name)
        rules = Rules.from_json(body.rules)
        if body.timer and body.timer < 5:
            raise RoomError("bad_timer", "the turn timer is 0 (off) or 5 to 600 seconds")
        joined = await server_of(request).lobby.create(
            name,
            rules=rules,
            seats=body.seats,
            bots=body.bots,
            timer=body.timer,
            public=body.public,
            show_lost_dice=body.show_lost_dice,
            lang=body.lang,
            client=client_of(request),
            profile=await profile_of(request, body.profile),
        )
    except RoomError as error:
        return refused(error)
    except (RulesError, ValueError) as error:
        return bad_settings(error)
    return JSONResponse({**joined, "url": f"/r/{joined['code']}"}, status_code=201)


async def join_room(request: Request) -> Response:
    try:
        room = await locate(request)
        if isinstance(room, Elsewhere):
            return await relay_http(request, room, await read_body(request))
        body: JoinRoom = await read_json(request, JoinRoom)
        try:
            profile = await profile_of(request, body.profile)
            if relayed(request) and request.headers.get(PROFILE_HEADER):
                profile = request.headers[PROFILE_HEADER][:32]  # found by the sender
            joined = await room.ask(inbox.Join(clean_name(body.name), body.invite, profile))
        except RoomError as error:
            if error.code == "locked" and body.invite:
                await server_of(request).lobby.wrong_key(client_of(request), client_id_of(request))
            raise
    except RoomError as error:
        return refused(error)
    except ValueError as error:
        return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
    return JSONResponse({**joined, "url": f"/r/{joined['code']}"})


async def quick_game(request: Request) -> Response:
    try:
        wanted: QuickGame = await read_json(request, QuickGame)
        rules = Rules.from_json(wanted.rules) if wanted.rules is not None else None
        joined = await server_of(request).lobby.quick(
            clean_name(wanted.name),
            client=client_of(request),
            rules=rules,
            profile=await profile_of(request, wanted.profile),
            lang=wanted.lang,
        )
    except RoomError as error:
        return refused(error)
    except (RulesError, ValueError) as error:
        return bad_settings(error)
    return JSONResponse({**joined, "url": f"/r/{joined['code']}"})


async def room_info(request: Request) -> Response:
    try:
        room = await locate(request)
        if isinstance(room, Elsewhere):
            return await relay_http(request, room, None)
        # Asked inside the ``try``: a room found here may stop before it answers (its node
        # drains, a rolling restart), and that is "moved", never a 500.
        summary = await room.ask(inbox.Describe())
    except RoomError as error:
        return refused(error)
    return JSONResponse(summary)


async def share_origins(request: Request) -> Response:
    """Where friends can reach this server (``{"origins": ["http://ADDRESS:PORT", ...]}``):
    this machine's addresses when ``dudo serve`` listens on all interfaces, else none. The
    share panel of a page opened as localhost links to the first instead of to localhost,
    which no friend's phone can open."""
    origins = list(server_of(request).settings.share_origins)
    return JSONResponse({"origins": origins}, headers={"Cache-Control": "no-store"})


async def room_qr(request: Request) -> Response:
    """The share panel's QR code (dudo.server.web.share): the room's link for the page's
    ``?origin=``, with the host's ``?invite=`` key if given. An unknown room, or a key
    that is not the room's, is answered like an address that does not exist."""
    nothing = JSONResponse(
        {"error": "not_found", "message": "there is nothing at this address"}, 404
    )
    invite = request.query_params.get("invite") or None
    origin = clean_origin(request.query_params.get("origin", ""))
    shared = server_of(request).settings.share_origins
    if not relayed(request) and (
        origin is None or not (own_origin(request, origin) or origin in shared)
    ):
        return JSONResponse(
            {
                "error": "bad_request",
                "message": "origin: give this site's own origin, as the page's location.origin",
            },
            400,
        )
    try:
        room = await locate(request)
        if isinstance(room, Elsewhere):
            return await relay_http(request, room, None)
        if invite is not None and not await room.ask(inbox.CheckInvite(invite)):
            return nothing
    except RoomError as error:
        return nothing if error.code == "no_room" else refused(error)
    assert origin is not None
    # The image is the same for the same address: the browser keeps it a day. Private:
    # the host's address carries the invite key.
    return Response(
        qr_svg(share_link(origin, room.code, invite)),
        media_type="image/svg+xml",
        headers={"Cache-Control": "private, max-age=86400"},
    )


async def public_rooms(request: Request) -> Response:
    return JSONResponse({"rooms": await server_of(request).lobby.list_public()})


async def game_record(request: Request) -> Response:
    game_id = request.path_params["game_id"]
    if not (game_id.isascii() and game_id.isalnum()) or len(game_id) > 40:
        return JSONResponse({"error": "bad_request", "message": "not a game id"}, 400)
    record = await server_of(request).live.store.load_game(game_id)
    if record is None:
        return JSONResponse({"error": "no_game", "message": "no finished game with that id"}, 404)
    return JSONResponse(record)
