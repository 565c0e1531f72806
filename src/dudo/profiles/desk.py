"""The profile API: what a device may do with the secret it holds.

The secret (64 hex digits, made by the device) travels only in JSON bodies, never in a
URL, so it reaches no access log; the book keeps its SHA-256. An unknown secret or
transfer code counts against the same guess budget as an unknown room code (the lobby's),
and a burst of new profiles from one address is refused (``too_many_profiles``).

Routes (all JSON; ``secret`` in the body):

- ``POST /api/profile`` ``{secret, name?}``: register this device's profile (201), or
  get it back if already registered.
- ``POST /api/profile/me`` ``{secret}``: the profile, its rating and its stats.
- ``POST /api/profile/edit`` ``{secret, name?, leaderboard?}``.
- ``POST /api/profile/transfer`` ``{secret}``: a one-time code for another device.
- ``POST /api/profile/claim`` ``{code, secret}``: the other device's own new secret
  becomes a key of the code's profile.
- ``POST /api/profile/export`` ``{secret}``: everything kept, as a JSON download.
- ``POST /api/profile/forget`` ``{secret}``: delete everything kept for the profile.
- ``GET /api/leaderboard``: the profiles that chose to be listed.
- ``GET /api/rooms/{code}/series``: standings across a room's rematches (see series).
"""

from __future__ import annotations

import hashlib
import io
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlsplit

import segno
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from dudo.printable import clipped
from dudo.profiles.book import Profile, ProfileBook, TransferRefused
from dudo.profiles.series import standings
from dudo.profiles.stats import PlayedGame, profile_stats
from dudo.server.site.lobby import normalise_code
from dudo.server.web.share import clean_origin

SECRET_PATTERN = "^[0-9a-f]{64}$"
Secret = Annotated[str, Field(pattern=SECRET_PATTERN)]
# Transfer codes: 12 letters and digits nobody confuses (no 0/O, 1/I/L), typed in groups
# of four; about 59 bits, good for TRANSFER_LIFETIME and one use, behind the guess budget.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 12
TRANSFER_LIFETIME = 600.0
STATS_GAMES = 500  # the newest games the stats read


def key_hash(secret: str) -> str:
    """What the book keeps of a device's secret."""
    return hashlib.sha256(f"dudo-profile:{secret}".encode()).hexdigest()


def code_hash(code: str) -> str:
    return hashlib.sha256(f"dudo-transfer:{code}".encode()).hexdigest()


def clean_code(text: str) -> str | None:
    """A typed code, spaces, dashes and case forgiven; None if it cannot be one."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def qr_code(link: str) -> str:
    """The link as a QR code in SVG (not cached: it holds a live transfer code)."""
    symbol = segno.make(link, error="m")
    out = io.BytesIO()
    symbol.save(
        out,
        kind="svg",
        xmldecl=False,
        omitsize=True,
        border=4,
        dark="#000",
        light="#fff",
        svgclass=None,
        lineclass=None,
    )
    return out.getvalue().decode()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class CreationLimit:
    """At most ``limit`` new profiles per address in any ``window`` seconds (per node)."""

    def __init__(
        self, limit: int = 10, window: float = 600.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.made: dict[str, list[float]] = {}

    def take(self, address: str) -> bool:
        now = self.clock()
        if len(self.made) > 10_000:  # many addresses: forget those with nothing recent
            self.made = {
                key: times
                for key, times in self.made.items()
                if times and times[-1] > now - self.window
            }
        recent = [at for at in self.made.get(address, []) if at > now - self.window]
        if len(recent) >= self.limit:
            self.made[address] = recent
            return False
        self.made[address] = [*recent, now]
        return True


class WithSecret(BaseModel):
    # strict: "yes" or 1 for a flag is refused by name, as room creation refuses it
    model_config = ConfigDict(extra="forbid", strict=True)
    secret: Secret


class CreateProfile(WithSecret):
    name: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class EditProfile(WithSecret):
    name: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    leaderboard: bool | None = None


class MakeTransfer(WithSecret):
    origin: Annotated[str, Field(max_length=200)] | None = None  # the page's location.origin


class ClaimProfile(WithSecret):
    code: Annotated[str, Field(min_length=1, max_length=40)]


class Refusal(Exception):
    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code, self.status = code, status

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.code, "message": str(self)}, self.status)


@dataclass
class ProfileDesk:
    """What the routes need from the app, handed in by it (dudo.server.web.desk)."""

    book: Callable[[], ProfileBook]
    load_game: Callable[[str], Awaitable[dict[str, Any] | None]]
    read_json: Callable[[Request, type[BaseModel]], Awaitable[Any]]
    client_of: Callable[[Request], str]
    guess_blocked: Callable[[Request], Awaitable[bool]]
    guess_missed: Callable[[Request], Awaitable[None]]
    clean_name: Callable[[str], str]
    creations: CreationLimit
    clock: Callable[[], float] = time.time

    async def body(self, request: Request, model: type[BaseModel]) -> Any:
        try:
            return await self.read_json(request, model)
        except Exception as error:  # the app's RoomError: bad JSON, too large
            code = getattr(error, "code", "bad_request")
            status = {"too_large": 413, "unsupported_media_type": 415}.get(code, 400)
            raise Refusal(code, str(error), status) from None

    async def holder(self, request: Request, secret: str) -> Profile:
        """The profile the secret opens; an unknown one is a guess."""
        if await self.guess_blocked(request):
            raise Refusal(
                "too_many_guesses", "too many unknown profiles or codes: wait a minute", 429
            )
        found = await self.book().by_key(key_hash(secret))
        if found is None:
            await self.guess_missed(request)
            raise Refusal(
                "no_profile",
                "this server does not know that profile (made on another server, or forgotten)",
                404,
            )
        return found

    async def stats(self, profile: Profile) -> dict[str, Any]:
        played = []
        for game_id, seat, finished_at in await self.book().games_of(profile.id, STATS_GAMES):
            record = await self.load_game(game_id)
            if record is not None:
                played.append(PlayedGame(game_id, seat, finished_at, record))
        return profile_stats(played)

    # -- the routes ---------------------------------------------------------------------

    async def create(self, request: Request) -> Response:
        body: CreateProfile = await self.body(request, CreateProfile)
        # A name is checked whether or not the profile exists already (then it is not used):
        # a name refused for a new profile is refused for a known one too.
        try:
            name = self.clean_name(body.name or "Player")
        except ValueError as error:
            raise Refusal("bad_name", str(error), 400) from None
        book = self.book()
        known = await book.by_key(key_hash(body.secret))
        if known is not None:
            return JSONResponse({"profile": known.public()})
        if not self.creations.take(self.client_of(request)):
            raise Refusal(
                "too_many_profiles", "too many new profiles from this address: try again later", 429
            )
        made = await book.create(
            key_hash(body.secret),
            Profile(
                id=secrets.token_hex(8),
                name=name,
                avatar=secrets.token_hex(4),
                created_at=self.clock(),
            ),
        )
        return JSONResponse({"profile": made.public()}, 201)

    async def me(self, request: Request) -> Response:
        body: WithSecret = await self.body(request, WithSecret)
        profile = await self.holder(request, body.secret)
        return JSONResponse({"profile": profile.public(), "stats": await self.stats(profile)})

    async def edit(self, request: Request) -> Response:
        body: EditProfile = await self.body(request, EditProfile)
        profile = await self.holder(request, body.secret)
        try:
            name = None if body.name is None else self.clean_name(body.name)
        except ValueError as error:
            raise Refusal("bad_name", str(error), 400) from None
        edited = await self.book().edit(profile.id, name=name, leaderboard=body.leaderboard)
        assert edited is not None
        return JSONResponse({"profile": edited.public()})

    async def transfer(self, request: Request) -> Response:
        """A one-time code, its link (the code in the fragment, so it never reaches a
        server's log as a URL) and the link as a QR code (SVG), for the other device."""
        body: MakeTransfer = await self.body(request, MakeTransfer)
        profile = await self.holder(request, body.secret)
        code = new_code()
        now = self.clock()
        expires = now + TRANSFER_LIFETIME
        # (The profile's oldest code is replaced once it holds TRANSFERS_KEPT.)
        await self.book().add_transfer(code_hash(code), profile.id, expires, now)
        shown = "-".join(code[i : i + 4] for i in range(0, CODE_LENGTH, 4))
        origin = clean_origin(body.origin or "")
        if origin is None or urlsplit(origin).netloc != request.headers.get("host"):
            origin = str(request.base_url).rstrip("/")
        link = f"{origin}/me#claim={shown}"
        return JSONResponse(
            {"code": shown, "expires_at": expires, "link": link, "qr": qr_code(link)}
        )

    async def claim(self, request: Request) -> Response:
        body: ClaimProfile = await self.body(request, ClaimProfile)
        if await self.guess_blocked(request):
            raise Refusal(
                "too_many_guesses", "too many unknown profiles or codes: wait a minute", 429
            )
        code = clean_code(body.code)
        try:
            if code is None:
                raise TransferRefused("unknown")
            profile = await self.book().take_transfer(
                code_hash(code), key_hash(body.secret), self.clock()
            )
        except TransferRefused as refused:
            if refused.reason != "taken":  # a known code: no guess
                await self.guess_missed(request)
            message, status = {
                "unknown": ("no such transfer code: check what you typed", 404),
                "expired": (
                    "this transfer code has expired: make a new one on the other device",
                    410,
                ),
                "used": (
                    "this transfer code was used already: make a new one on the other device",
                    409,
                ),
                "taken": (
                    "this secret already opens another profile: claim with a new secret "
                    "(the code is still good)",
                    409,
                ),
            }[refused.reason]
            raise Refusal(f"code_{refused.reason}", message, status) from None
        return JSONResponse({"profile": profile.public()})

    async def export(self, request: Request) -> Response:
        body: WithSecret = await self.body(request, WithSecret)
        profile = await self.holder(request, body.secret)
        games = [
            {"game_id": game_id, "seat": seat, "finished_at": at}
            for game_id, seat, at in await self.book().games_of(profile.id, 100_000)
        ]
        data = {
            "profile": profile.public(),
            "games": games,
            "stats": await self.stats(profile),
            "about": "everything this dudo server keeps for this profile; the games "
            "themselves are at /api/games/ID",
        }
        return JSONResponse(
            data,
            headers={
                "Content-Disposition": f'attachment; filename="dudo-profile-{profile.id}.json"'
            },
        )

    async def forget(self, request: Request) -> Response:
        body: WithSecret = await self.body(request, WithSecret)
        profile = await self.holder(request, body.secret)
        await self.book().forget(profile.id)
        return JSONResponse({"forgotten": profile.id})

    async def leaderboard(self, request: Request) -> Response:
        listed = await self.book().leaderboard()
        return JSONResponse(
            {
                "players": [
                    {
                        "place": place,
                        "name": p.name,
                        "avatar": p.avatar,
                        "rating": p.public()["rating"],
                    }
                    for place, p in enumerate(listed, start=1)
                ]
            }
        )

    async def series(self, request: Request) -> Response:
        """A room's standings; a code with no finished game counts as a guess (like an
        unknown room code), so codes cannot be walked here either."""
        if await self.guess_blocked(request):
            raise Refusal("too_many_guesses", "too many unknown room codes: wait a minute", 429)
        typed = request.path_params["code"]
        code = normalise_code(typed)  # in any case and with spaces, as everywhere
        games = await self.book().series(code) if code else []
        if not games:
            await self.guess_missed(request)
        return JSONResponse({"room": code or clipped(typed.upper()), **standings(games)})

    def routes(self) -> list[BaseRoute]:
        def guarded(
            handler: Callable[[Request], Awaitable[Response]],
        ) -> Callable[[Request], Awaitable[Response]]:
            async def endpoint(request: Request) -> Response:
                try:
                    return await handler(request)
                except Refusal as refusal:
                    return refusal.response()

            return endpoint

        async def page(request: Request) -> Response:
            from dudo.server.web.assets import static_tree
            from dudo.server.web.pages import WEB

            return static_tree(WEB).page("profile.html", request)

        post = ["POST"]
        return [
            Route("/me", page),
            Route("/api/profile", guarded(self.create), methods=post),
            Route("/api/profile/me", guarded(self.me), methods=post),
            Route("/api/profile/edit", guarded(self.edit), methods=post),
            Route("/api/profile/transfer", guarded(self.transfer), methods=post),
            Route("/api/profile/claim", guarded(self.claim), methods=post),
            Route("/api/profile/export", guarded(self.export), methods=post),
            Route("/api/profile/forget", guarded(self.forget), methods=post),
            Route("/api/leaderboard", guarded(self.leaderboard)),
            Route("/api/rooms/{code}/series", guarded(self.series)),
        ]
