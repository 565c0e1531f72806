"""After the game: a finished game's analysis and its scenario file, over HTTP.

``GET /api/games/{game_id}/analysis`` answers with :func:`dudo.bots.analysis.analyze` of the
game's record, made on demand and kept in memory: a finished game never changes, so its
analysis is made once per process. One analysis takes a second or more of CPU (2.86 s for
6 seats x 10 dice), and made in a thread it competed with the event loop for the
interpreter lock: 16 clients cycling 152 games took a live room's ping from p99 5.5 ms to
98 ms. So analyses are made in a worker *process* (one, at a lower priority), at most
``MAX_WAITING`` games wait for it (more answer 503 ``busy``), and each client may have a
few made for it a minute (more answer 429 ``too_many_analyses``, with ``Retry-After``);
analyses already made are served to anyone at once. ``GET /api/games/{game_id}/scenario`` is
the record cut down to a scenario file that ``dudo scenario`` plays (the record itself has
fields a scenario may not carry).

Transport only: the analysis is the bots layer's, the record the store's.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import math
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from dudo.bots.analysis import AnalysisError, analyze
from dudo.server.guard.gate import Buckets
from dudo.server.web.assets import accepted_encodings

log = logging.getLogger("dudo.server")

LoadGame = Callable[[str], Awaitable[dict[str, Any] | None]]

CACHED_ANALYSES = int(os.environ.get("DUDO_ANALYSIS_CACHE", "128"))
"""Analyses kept in memory, as encoded JSON (some 50 KB a game; the least recently asked
for goes first)."""
MAX_WAITING = 8  # games waiting for the worker, beyond the one it is making
# Analyses made for one client (address) at once, and then a minute (the bench lifts
# them with DUDO_ANALYSES_PER_CLIENT to show the worker process alone).
PER_CLIENT_BURST = int(os.environ.get("DUDO_ANALYSES_PER_CLIENT", "4"))
PER_CLIENT_PER_MINUTE = 6.0


class AnalysesBusy(Exception):
    """An analysis that cannot be made now: ``code`` (``busy`` or ``too_many_analyses``),
    and how many seconds to wait."""

    def __init__(self, code: str, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


def analysis_json(record: dict[str, Any]) -> bytes:
    """The analysis of a record as JSON bytes (run in the worker process)."""
    return json.dumps(analyze(record).to_json(), separators=(",", ":")).encode()


def _lower_priority() -> None:
    """The worker yields the CPU to the server's event loop when both want it."""
    with contextlib.suppress(OSError):  # not allowed: it still runs outside the GIL
        os.nice(19)


def worker_pool() -> Executor:
    """One worker process, started fresh (spawned: the server's threads are not forked)."""
    return ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority
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
    ) -> None:
        self.load = load
        self.size = size
        self.done: OrderedDict[str, bytes] = OrderedDict()
        # The same JSON gzipped once, off the event loop (zlib lets go of the interpreter
        # lock): a flood of requests for cached analyses costs the loop almost nothing,
        # where compressing each answer again (the dynamic gzip) held it for milliseconds.
        self.zipped: dict[str, bytes] = {}
        self.pending: dict[str, asyncio.Future[bytes | None]] = {}
        self.worker = asyncio.Semaphore(1)
        self.made = 0
        # None: in a thread of this process (tests that patch ``analyze``).
        self._make_executor = executor
        self._executor: Executor | None = None
        self.max_waiting = max_waiting
        self.clients = Buckets(per_client_per_minute / 60.0, per_client_burst)
        self.refused = {"busy": 0, "too_many_analyses": 0}

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
                analysis = await asyncio.to_thread(
                    lambda: json.dumps(analyze(record).to_json(), separators=(",", ":")).encode()
                )
            else:
                if self._executor is None:
                    self._executor = self._make_executor()
                analysis = await asyncio.get_running_loop().run_in_executor(
                    self._executor, analysis_json, record
                )
        self.made += 1
        if analysis is not None:
            self.zipped[game_id] = await asyncio.to_thread(gzip.compress, analysis, 6)
        self.done[game_id] = analysis
        while len(self.done) > self.size:
            old, _ = self.done.popitem(last=False)
            self.zipped.pop(old, None)
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
            analysis = await analyses.get(game_id, client)
        except AnalysesBusy as busy:
            status = 429 if busy.code == "too_many_analyses" else 503
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
        headers = {"Cache-Control": "public, max-age=3600", "Vary": "Accept-Encoding"}
        zipped = analyses.zipped.get(game_id)
        if zipped is not None and "gzip" in accepted_encodings(
            request.headers.get("accept-encoding", "")
        ):
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
