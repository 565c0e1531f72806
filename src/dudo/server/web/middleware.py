"""What wraps every request: security headers, the catch-all for unexpected exceptions,
the error shapes of Starlette's own refusals (not found, method not allowed) and of an
unreachable cluster, and a filter that turns uvicorn's traceback for a bad frame into a line.
"""

from __future__ import annotations

import contextlib
import logging

from starlette.datastructures import MutableHeaders, QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dudo.server.logs import log_event
from dudo.server.web.pages import STYLE_HASH, embed_requested, error_page

log = logging.getLogger("dudo.server")

# Only this site's own files: no inline scripts, no other origins, no <style> element but
# the rules sheet's own (by its hash). style-src-attr: the table places its seats with
# style="left:..;top:.." (web/js/table.js).
CONTENT_SECURITY_POLICY = (
    f"default-src 'self'; script-src 'self'; style-src 'self' {STYLE_HASH}; "
    "style-src-attr 'unsafe-inline'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'"
)


class SecurityHeaders:
    """Headers for every HTTP response: a content security policy, no MIME sniffing, no
    referrer, and no framing by other sites, except the rules sheet asked for with
    ``?embed=1`` (meant for iframes anywhere)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        embeddable = scope["path"] == "/rules" and embed_requested(
            QueryParams(scope["query_string"])
        )
        policy = CONTENT_SECURITY_POLICY + ("" if embeddable else "; frame-ancestors 'none'")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = policy
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                if not embeddable:
                    headers["X-Frame-Options"] = "DENY"
            await send(message)

        await self.app(scope, receive, send_with_headers)


INTERNAL_ERROR = {
    "error": "internal",
    "message": "something went wrong on the server; it has been logged",
}


class CatchAll:
    """An exception a handler did not expect: logged once (with its traceback), and the
    client gets a JSON 500 in the usual error shape (a WebSocket: close code 1011)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = closed = False

        async def watch(message: Message) -> None:
            nonlocal started, closed
            if message["type"] in (
                "http.response.start",
                "websocket.accept",
                "websocket.http.response.start",
            ):
                started = True
            elif message["type"] == "websocket.close":
                closed = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            if scope["type"] == "http" and started:
                raise  # half a response is out: the server logs it and drops the connection
            # The path only: a WebSocket's query string carries its seat token.
            log.error(
                "unhandled_error",
                exc_info=True,
                extra={
                    "fields": {
                        "event": "unhandled_error",
                        "method": scope.get("method", "WEBSOCKET"),
                        "path": scope["path"][:200],
                    }
                },
            )
            with contextlib.suppress(Exception):
                if scope["type"] == "http":
                    await JSONResponse(INTERNAL_ERROR, status_code=500)(scope, receive, send)
                elif not closed:
                    await send({"type": "websocket.close", "code": 1011})


class QuietBadFrames(logging.Filter):
    """uvicorn logs a text frame that is not UTF-8 as an error with a traceback (then
    closes the socket with 1007): that is a client's mistake, worth one line at info."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, UnicodeDecodeError) or "utf-8" not in str(record.msg).lower():
            return True  # (an app's own UnicodeDecodeError is a bug: logged as it is)
        if not logging.getLogger(record.name).isEnabledFor(logging.INFO):
            return False
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.exc_info = record.exc_text = None
        record.msg, record.args = "bad_utf8_frame", ()
        record.__dict__["fields"] = {
            "event": "bad_utf8_frame",
            "message": "a WebSocket text frame was not UTF-8: closed with 1007",
        }
        return True


async def cluster_unreachable(request: Request, error: Exception) -> Response:
    """Redis away (a cluster node): the request changed nothing; try again shortly."""
    log_event(
        log,
        "cluster_unreachable",
        logging.WARNING,
        path=request.url.path[:200],
        error=str(error)[:200],
    )
    return JSONResponse(
        {
            "error": "unavailable",
            "message": "the server cannot reach its cluster just now: try again in a moment",
        },
        status_code=503,
    )


async def http_error(request: Request, error: Exception) -> Response:
    """Not found, method not allowed...: the JSON error shape, or a page for a browser
    that navigated there (outside /api/)."""
    assert isinstance(error, HTTPException)
    status, headers = error.status_code, error.headers
    if status < 400:
        return Response(status_code=status, headers=headers)
    code, message = {
        404: ("not_found", "there is nothing at this address"),
        405: ("method_not_allowed", "this address does not take that method"),
    }.get(status, ("bad_request", str(error.detail)))
    if "text/html" in request.headers.get("accept", "") and not request.url.path.startswith(
        "/api/"
    ):
        return HTMLResponse(error_page(message), status_code=status, headers=headers)
    return JSONResponse({"error": code, "message": message}, status_code=status, headers=headers)
