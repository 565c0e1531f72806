"""The pages a browser gets: the client's HTML shell, its static files, the rules sheet.

The browser client itself lives in ``dudo/web/`` as plain ES modules, CSS and SVG, served
as they are (no build step). Pages hold no game logic: the client renders what the
WebSocket sends.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from dudo import __version__
from dudo.rules import Rules, RulesError
from dudo.rules_text import rules_sections, title

WEB = Path(__file__).resolve().parent.parent / "web"


def query_rules(request: Request) -> Rules:
    """Rules from ``?preset=...&option=value`` (raises RulesError for bad ones)."""
    options: dict[str, Any] = {}
    for key, value in request.query_params.items():
        if key in ("embed", "lang"):
            continue
        options[key] = _query_value(value)
    return Rules.from_json(options)


def _query_value(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    return int(value) if value.isdigit() else value


async def home(request: Request) -> Response:
    index = WEB / "index.html"
    if index.is_file():
        return FileResponse(index)
    return HTMLResponse(PLACEHOLDER_PAGE.format(version=__version__))


async def rules_page(request: Request) -> Response:
    try:
        rules = query_rules(request)
    except RulesError as error:
        return HTMLResponse(f"<p>{html.escape(str(error))}</p>", status_code=400)
    parts = [f"<h1>{html.escape(title(rules))}</h1>"]
    for heading, paragraphs in rules_sections(rules):
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.extend(f"<p>{html.escape(text)}</p>" for text in paragraphs)
    return HTMLResponse("<!doctype html><html lang=en><meta charset=utf-8>"
                        "<title>dudo rules</title><body>" + "".join(parts) + "</body></html>")


def page_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = [
        Route("/", home),
        Route("/r/{code}", home),
        Route("/rules", rules_page),
    ]
    if WEB.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=WEB), name="static"))
    return routes


PLACEHOLDER_PAGE = """<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>dudo</title>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto;
padding: 0 1rem">
<h1>dudo</h1>
<p>Liar's Dice for friends and programs. This server (version {version}) speaks the dudo
WebSocket protocol; the browser table is on its way. Meanwhile play in a terminal with
<code>dudo play</code>, or seat a program with the Python client (<code>dudo.client</code>).</p>
<p><a href="/rules">The rules</a> · <a href="/healthz">health</a></p>
</body></html>
"""
