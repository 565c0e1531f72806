"""After the game: a finished game's analysis and its scenario file, over HTTP.

``GET /api/games/{game_id}/analysis`` answers with :func:`dudo.bots.analysis.analyze` of the
game's record, made on demand in a worker thread (one at a time, so a burst of requests
never takes more than one core from the rooms) and kept in memory: a finished game never
changes, so its analysis is made once per process. ``GET /api/games/{game_id}/scenario`` is
the record cut down to a scenario file that ``dudo scenario`` plays (the record itself has
fields a scenario may not carry).

Transport only: the analysis is the bots layer's, the record the store's.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from dudo.bots.analysis import AnalysisError, analyze

log = logging.getLogger("dudo.server")

LoadGame = Callable[[str], Awaitable[dict[str, Any] | None]]

CACHED_ANALYSES = 128
"""Analyses kept in memory, as encoded JSON (some 50 KB a game; the least recently asked
for goes first)."""


def game_id_refusal(game_id: str) -> Response | None:
    """The 400 for a path that is not a game id (as ``GET /api/games/{id}`` answers)."""
    if not (game_id.isascii() and game_id.isalnum()) or len(game_id) > 40:
        return JSONResponse({"error": "bad_request", "message": "not a game id"}, 400)
    return None


NO_GAME = {"error": "no_game", "message": "no finished game with that id"}


class Analyses:
    """Analyses of finished games (as JSON bytes), made once each, one at a time, off the
    event loop."""

    def __init__(self, load: LoadGame, size: int = CACHED_ANALYSES) -> None:
        self.load = load
        self.size = size
        self.done: OrderedDict[str, bytes] = OrderedDict()
        self.pending: dict[str, asyncio.Future[bytes | None]] = {}
        self.worker = asyncio.Semaphore(1)
        self.made = 0

    async def get(self, game_id: str) -> bytes | None:
        """The analysis of a finished game as JSON; ``None`` if there is no such game. Raises
        :class:`AnalysisError` for a record that does not replay."""
        found = self.done.get(game_id)
        if found is not None:
            self.done.move_to_end(game_id)
            return found
        waiting = self.pending.get(game_id)
        if waiting is not None:  # someone asked a moment ago: share that work
            return await asyncio.shield(waiting)
        future: asyncio.Future[bytes | None] = (
            asyncio.get_running_loop().create_future())
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
            analysis = await asyncio.to_thread(
                lambda: json.dumps(analyze(record).to_json(), separators=(",", ":")).encode())
        self.made += 1
        self.done[game_id] = analysis
        while len(self.done) > self.size:
            self.done.popitem(last=False)
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
    scenario.update({key: record[key] for key in ("rules", "players", "start", "rounds")
                     if key in record})
    return scenario


def replay_routes(load: LoadGame) -> list[BaseRoute]:
    """The routes; ``load`` fetches a finished game's record by id (the store's)."""
    analyses = Analyses(load)

    async def game_analysis(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        refusal = game_id_refusal(game_id)
        if refusal is not None:
            return refusal
        try:
            analysis = await analyses.get(game_id)
        except AnalysisError as error:
            log.warning("analysis_failed", extra={"fields": {
                "event": "analysis_failed", "game_id": game_id, "error": str(error)[:200]}})
            return JSONResponse({"error": "bad_record",
                                 "message": f"this game's record cannot be analysed: {error}"},
                                500)
        if analysis is None:
            return JSONResponse(NO_GAME, 404)
        return Response(analysis, media_type="application/json",
                        headers={"Cache-Control": "public, max-age=3600"})

    async def game_scenario(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        refusal = game_id_refusal(game_id)
        if refusal is not None:
            return refusal
        record = await load(game_id)
        if record is None:
            return JSONResponse(NO_GAME, 404)
        return JSONResponse(scenario_of(record), headers={
            "Content-Disposition": f'attachment; filename="dudo-{game_id}.scenario.json"'})

    return [Route("/api/games/{game_id}/analysis", game_analysis),
            Route("/api/games/{game_id}/scenario", game_scenario)]
