"""After the game: a finished game's analysis and its scenario file, over HTTP.

``GET /api/games/{game_id}/analysis`` answers with :func:`dudo.bots.analysis.analyze` of the
game's record, made on demand and kept in memory: a finished game never changes, so its
analysis is made once per process. One analysis takes a second or more of CPU (2.86 s for
6 seats x 10 dice), and made in a thread it competed with the event loop for the
interpreter lock: 16 clients cycling 152 games took a live room's ping from p99 5.5 ms to
98 ms. So analyses are made in a worker *process* (one, at a lower priority), at most
``MAX_WAITING`` games wait for it (more answer 503 ``busy``), and each client may have a
few made for it a minute (more answer 429 ``too_many_analyses``, with ``Retry-After``);
analyses already made are served to anyone at once, as they were made: the worker returns
the JSON, its gzip and its ETag as bytes, so the event loop neither encodes nor compresses.
A finished game's analysis does not change: it goes out ``immutable`` with an ETag, and a
browser that has it gets 304. Every request for an analysis, made or cached, counts
against its client's and its network's request limits (``REQUESTS_PER_CLIENT``), far
beyond what a person reading analyses asks: a flood of cached answers is bounded too.
``GET /api/games/{game_id}/scenario`` is the record cut down to a scenario file that
``dudo scenario`` plays (the record itself has fields a scenario may not carry).

Transport only: the analysis is the bots layer's, the record the store's.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import hashlib
import json
import logging
import math
import multiprocessing
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from dudo.background import background_worker_started
from dudo.bots.analysis import AnalysisError, analyze
from dudo.server.guard.gate import Buckets
from dudo.server.guard.networks import network_of
from dudo.server.web.assets import accepted_encodings

log = logging.getLogger("dudo.server")

LoadGame = Callable[[str], Awaitable[dict[str, Any] | None]]

CACHED_ANALYSES = 128
"""Analyses kept in memory, as encoded JSON (some 50 KB a game; the least recently asked
for goes first). ``DUDO_ANALYSIS_CACHE`` sets it for ``dudo serve``, read with the other
settings (dudo.server.web.settings), as are the two below."""
MAX_WAITING = 8  # games waiting for the worker, beyond the one it is making
# Analyses made for one client (address) at once, and then a minute (the bench lifts
# them with DUDO_ANALYSES_PER_CLIENT to show the worker process alone).
PER_CLIENT_BURST = 4
PER_CLIENT_PER_MINUTE = 6.0
# Requests for analyses (made already or not), per client address and per network (an
# IPv4 /24, an IPv6 /64): a burst, then so many a minute. A person reading analyses opens
# one per game page; 20 in a row and then one every 2 s is more than anyone reads, and a
# network (a household, an office) gets four people's worth. ``DUDO_ANALYSIS_REQUESTS``
# sets the client's burst (the network's is 3 times as many; the bench lifts both).
REQUESTS_PER_CLIENT = 20
REQUESTS_PER_CLIENT_PER_MINUTE = 30.0
NETWORK_SHARE = 3  # a network's budget, as so many clients'
IMMUTABLE_FOR = 86_400  # seconds a browser keeps an analysis without asking again


class AnalysesBusy(Exception):
    """An analysis that cannot be made now: ``code`` (``busy`` or ``too_many_analyses``),
    and how many seconds to wait."""

    def __init__(self, code: str, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


def analysis_json(record: dict[str, Any]) -> bytes:
    """The analysis of a record as JSON bytes."""
    return json.dumps(analyze(record).to_json(), separators=(",", ":")).encode()


def analysis_bodies(record: dict[str, Any]) -> tuple[bytes, bytes, str]:
    """The analysis of a record as it is sent (run in the worker process): its JSON, the
    JSON gzipped, and an ETag (weak: the same for both codings)."""
    body = analysis_json(record)
    tag = hashlib.blake2b(body, digest_size=12).hexdigest()
    return body, gzip.compress(body, 6, mtime=0), f'W/"{tag}"'


@functools.lru_cache(maxsize=64)
def takes_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header allows gzip (the few headers browsers send,
    parsed once each)."""
    return "gzip" in accepted_encodings(accept_encoding)


def etag_matches(if_none_match: str, etag: str) -> bool:
    """If-None-Match's weak comparison (RFC 9110 13.1.2): ``*`` or any listed tag."""
    opaque = etag.removeprefix("W/")
    for item in if_none_match.split(","):
        item = item.strip()
        if item == "*" or item.removeprefix("W/") == opaque:
            return True
    return False


def worker_pool() -> Executor:
    """One worker process, started fresh (spawned: the server's threads are not forked),
    at the background priority, and gone with the server however it ends."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=background_worker_started,
    )


def game_id_refusal(game_id: str) -> Response | None:
    """The 400 for a path that is not a game id (as ``GET /api/games/{id}`` answers)."""
    if not (game_id.isascii() and game_id.isalnum()) or len(game_id) > 40:
        return JSONResponse({"error": "bad_request", "message": "not a game id"}, 400)
    return None


NO_GAME = {"error": "no_game", "message": "no finished game with that id"}


class Analyses:
    """Analyses of finished games (as JSON bytes), made once each, one at a time, in a
    worker process; the waiting bounded, and the making per client limited."""

    def __init__(
        self,
        load: LoadGame,
        size: int = CACHED_ANALYSES,
        executor: Callable[[], Executor] | None = worker_pool,
        max_waiting: int = MAX_WAITING,
        per_client_burst: int = PER_CLIENT_BURST,
        per_client_per_minute: float = PER_CLIENT_PER_MINUTE,
        requests_per_client: int = REQUESTS_PER_CLIENT,
        requests_per_client_per_minute: float = REQUESTS_PER_CLIENT_PER_MINUTE,
        network: Callable[[str], str] = network_of,
    ) -> None:
        self.load = load
        self.size = size
        self.done: OrderedDict[str, bytes] = OrderedDict()
        # The same JSON gzipped once, by the worker: a flood of requests for cached
        # analyses costs the loop almost nothing, where compressing each answer again
        # (the dynamic gzip) held it for milliseconds. And each one's ETag.
        self.zipped: dict[str, bytes] = {}
        self.etags: dict[str, str] = {}
        self.pending: dict[str, asyncio.Future[bytes | None]] = {}
        self.worker = asyncio.Semaphore(1)
        self.made = 0
        # None: in a thread of this process (tests that patch ``analyze``).
        self._make_executor = executor
        self._executor: Executor | None = None
        self.max_waiting = max_waiting
        self.clients = Buckets(per_client_per_minute / 60.0, per_client_burst)
        rate = requests_per_client_per_minute / 60.0
        self.requests = Buckets(rate, requests_per_client)
        self.network_requests = Buckets(rate * NETWORK_SHARE, requests_per_client * NETWORK_SHARE)
        self.network = network
        self.refused = {"busy": 0, "too_many_analyses": 0}  # analyses not made
        self.refused_requests = 0  # requests over the request limits (too_many_requests)

    def admit(self, client: str) -> None:
        """Count one request for an analysis, made or not; raises :class:`AnalysesBusy`
        (``too_many_requests``) past the client's or its network's limit."""
        if self.requests.take(client) and self.network_requests.take(self.network(client)):
            return
        self.refused_requests += 1
        wait = math.ceil(1 / self.requests.rate) if self.requests.rate else 60
        raise AnalysesBusy(
            "too_many_requests", "you asked for many analyses just now: wait a little", wait
        )

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def get(self, game_id: str, client: str = "unknown") -> bytes | None:
        """The analysis of a finished game as JSON; ``None`` if there is no such game. Raises
        :class:`AnalysisError` for a record that does not replay, :class:`AnalysesBusy`
        when it cannot be made now (too many waiting, or this client had its share)."""
        found = self.done.get(game_id)
        if found is not None:
            self.done.move_to_end(game_id)
            return found
        waiting = self.pending.get(game_id)
        if waiting is not None:  # someone asked a moment ago: share that work
            return await asyncio.shield(waiting)
        if len(self.pending) > self.max_waiting:
            self.refused["busy"] += 1
            raise AnalysesBusy(
                "busy", "many analyses are being made just now: try again in a moment", 5.0
            )
        if not self.clients.take(client):
            self.refused["too_many_analyses"] += 1
            wait = math.ceil(1 / self.clients.rate) if self.clients.rate else 60
            raise AnalysesBusy(
                "too_many_analyses",
                "you asked for many analyses just now: wait a little",
                float(wait),
            )
        future: asyncio.Future[bytes | None] = asyncio.get_running_loop().create_future()
        self.pending[game_id] = future
        try:
            result = await self._make(game_id)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved here: nobody else need be waiting
            raise
        finally:
            self.pending.pop(game_id, None)
        future.set_result(result)
        return result

    async def _make(self, game_id: str) -> bytes | None:
        record = await self.load(game_id)
        if record is None:
            return None
        async with self.worker:
            if self._make_executor is None:
                analysis, zipped, etag = await asyncio.to_thread(analysis_bodies, record)
            else:
                if self._executor is None:
                    self._executor = self._make_executor()
                analysis, zipped, etag = await asyncio.get_running_loop().run_in_executor(
                    self._executor, analysis_bodies, record
                )
        self.made += 1
        self.zipped[game_id], self.etags[game_id] = zipped, etag
        self.done[game_id] = analysis
        while len(self.done) > self.size:
            old, _ = self.done.popitem(last=False)
            self.zipped.pop(old, None)
            self.etags.pop(old, None)
        return analysis


def scenario_of(record: dict[str, Any]) -> dict[str, Any]:
    """A game record as a scenario file: the rules, start and rounds, the rest in words."""
    names = record.get("names")
    about = f"dudo game {record.get('game_id', '')}".strip()
    if record.get("room"):
        about += f" at table {record['room']}"
    if isinstance(names, list) and names:
        about += ": " + ", ".join(f"seat {seat} {name}" for seat, name in enumerate(names))
    scenario: dict[str, Any] = {"about": about}
    scenario.update(
        {key: record[key] for key in ("rules", "players", "start", "rounds") if key in record}
    )
    return scenario


def replay_routes(
    load: LoadGame,
    client_of: Callable[[Request], str] | None = None,
    analyses: Analyses | None = None,
) -> list[BaseRoute]:
    """The routes; ``load`` fetches a finished game's record by id (the store's),
    ``client_of`` names the client a request comes from (its address)."""
    analyses = analyses or Analyses(load)

    async def game_analysis(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        refusal = game_id_refusal(game_id)
        if refusal is not None:
            return refusal
        client = (
            client_of(request)
            if client_of
            else (request.client.host if request.client else "unknown")
        )
        try:
            analyses.admit(client)
            analysis = await analyses.get(game_id, client)
        except AnalysesBusy as busy:
            status = 503 if busy.code == "busy" else 429
            return JSONResponse(
                {"error": busy.code, "message": str(busy)},
                status,
                headers={"Retry-After": f"{busy.retry_after:.0f}"},
            )
        except AnalysisError as error:
            log.warning(
                "analysis_failed",
                extra={
                    "fields": {
                        "event": "analysis_failed",
                        "game_id": game_id,
                        "error": str(error)[:200],
                    }
                },
            )
            return JSONResponse(
                {
                    "error": "bad_record",
                    "message": f"this game's record cannot be analysed: {error}",
                },
                500,
            )
        if analysis is None:
            return JSONResponse(NO_GAME, 404)
        headers = {
            "Cache-Control": f"public, max-age={IMMUTABLE_FOR}, immutable",
            "Vary": "Accept-Encoding",
        }
        etag = analyses.etags.get(game_id)
        if etag is not None:
            headers["ETag"] = etag
            if etag_matches(request.headers.get("if-none-match", ""), etag):
                return Response(status_code=304, headers=headers)
        zipped = analyses.zipped.get(game_id)
        if zipped is not None and takes_gzip(request.headers.get("accept-encoding", "")):
            headers["Content-Encoding"] = "gzip"
            return Response(zipped, media_type="application/json", headers=headers)
        return Response(analysis, media_type="application/json", headers=headers)

    async def game_scenario(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        refusal = game_id_refusal(game_id)
        if refusal is not None:
            return refusal
        record = await load(game_id)
        if record is None:
            return JSONResponse(NO_GAME, 404)
        return JSONResponse(
            scenario_of(record),
            headers={"Content-Disposition": f'attachment; filename="dudo-{game_id}.scenario.json"'},
        )

    return [
        Route("/api/games/{game_id}/analysis", game_analysis),
        Route("/api/games/{game_id}/scenario", game_scenario),
    ]
