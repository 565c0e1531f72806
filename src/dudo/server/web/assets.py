"""The browser client's files served like a production site's (docs/web.md, "Caching").

The files of ``dudo/web/`` are read once, when the app is made, and kept in memory with
their gzip and brotli forms (compressed once, not per request). The whole tree has one
content hash, its *version*; every file is served at ``/static/<version>/<path>`` with a
year-long immutable cache lifetime, so a browser asks for it again only when a file of the
client changed (and with it the version and every URL). The modules import each other by
relative paths, which keep working under the prefix, so no build step rewrites them.

The HTML pages are the one thing a browser must always check: they are served with
``no-cache`` (revalidated with their ETag every time) and carry the versioned URLs,
written into them when the tree is read. The old unversioned URLs (``/static/js/app.js``,
bookmarked or in a page cached before an upgrade) still answer, with ``no-cache`` too, as
does a version that is not the current one (a page from before a restart asks for it
once): that one gets today's file, never cached for long since its content no longer
matches its URL.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

try:  # brotli is a dependency, but the client is served (gzip only) without it
    import brotli
except ImportError:  # pragma: no cover
    brotli = None

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# Below this a file goes as it is: a compressed copy would save less than a packet.
COMPRESS_FROM = 1024
_COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",  # compressed already: sent as it is
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
}
VERSION_LENGTH = 12
_VERSION = re.compile(f"^[0-9a-f]{{{VERSION_LENGTH}}}$")


@dataclass(frozen=True)
class Asset:
    """One file as served: its bytes, its compressed forms (None where not worth it), its
    media type and its ETag."""

    body: bytes
    media_type: str
    etag: str
    gzip: bytes | None = None
    brotli: bytes | None = None

    @classmethod
    def of(cls, body: bytes, media_type: str) -> Asset:
        # Weak: the same tag for each coding of the same bytes (a strong one would have to
        # differ between the brotli, gzip and plain forms).
        etag = 'W/"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        if len(body) < COMPRESS_FROM or not media_type.startswith(_COMPRESSIBLE):
            return cls(body, media_type, etag)
        zipped = gzip.compress(body, compresslevel=9, mtime=0)
        squeezed = brotli.compress(body, quality=11) if brotli is not None else None
        return cls(
            body,
            media_type,
            etag,
            zipped if len(zipped) < len(body) else None,
            squeezed if squeezed is not None and len(squeezed) < len(body) else None,
        )

    @property
    def compressible(self) -> bool:
        return self.gzip is not None or self.brotli is not None

    def response(
        self, request_headers: Headers, cache_control: str, head: bool = False
    ) -> Response:
        """This file for one request: 304 if the browser has it (If-None-Match), else
        the best encoding the browser accepts."""
        headers = {"Cache-Control": cache_control, "ETag": self.etag}
        if self.compressible:
            headers["Vary"] = "Accept-Encoding"
        if self.etag in request_headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        body, encoding = self.body, ""
        accepted = accepted_encodings(request_headers.get("accept-encoding", ""))
        if self.brotli is not None and "br" in accepted:
            body, encoding = self.brotli, "br"
        elif self.gzip is not None and "gzip" in accepted:
            body, encoding = self.gzip, "gzip"
        if encoding:
            headers["Content-Encoding"] = encoding
        headers["Content-Length"] = str(len(body))
        return Response(b"" if head else body, media_type=self.media_type, headers=headers)


def accepted_encodings(header: str) -> set[str]:
    """The codings an Accept-Encoding header allows (``gzip;q=0`` refuses gzip)."""
    allowed = set()
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if name.strip() and quality > 0:
            allowed.add(name.strip().lower())
    return allowed


class StaticTree:
    """The client's files in memory, by path relative to ``root``; the HTML pages with
    their ``/static/`` URLs pointing at this version."""

    def __init__(self, root: Path) -> None:
        contents: dict[str, bytes] = {}
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                contents[path.relative_to(root).as_posix()] = path.read_bytes()
        digest = hashlib.sha256()
        for name, body in contents.items():
            digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
        self.version = digest.hexdigest()[:VERSION_LENGTH]
        self.prefix = f"/static/{self.version}/"
        self.files = {name: Asset.of(body, media_type(name)) for name, body in contents.items()}
        self.pages = {
            name: Asset.of(self.versioned(body), media_type(name))
            for name, body in contents.items()
            if name.endswith(".html")
        }

    def versioned(self, page: bytes) -> bytes:
        """A page with its ``"/static/...`` URLs under this version's prefix."""
        return page.replace(b'"/static/', b'"' + self.prefix.encode())

    def page(self, name: str, request: Request) -> Response:
        """An HTML page of the client (``index.html``...): never cached unchecked."""
        return self.pages[name].response(request.headers, REVALIDATE, request.method == "HEAD")

    async def serve(self, request: Request) -> Response:
        """``/static/<version>/<path>`` (immutable when the version is this one) or
        ``/static/<path>`` (the old URLs)."""
        path = str(request.path_params["path"])
        first, _, rest = path.partition("/")
        cache_control = REVALIDATE
        if _VERSION.match(first) and rest:
            path = rest
            if first == self.version:
                cache_control = IMMUTABLE
        asset = self.files.get(path)
        if asset is None:
            raise HTTPException(404)  # the app's not-found answer (JSON, or a page)
        return asset.response(request.headers, cache_control, request.method == "HEAD")


def media_type(name: str) -> str:
    suffix = Path(name).suffix.lower()
    return _TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"


@cache
def static_tree(root: Path) -> StaticTree:
    """The tree read once per process (every app made in it shares it)."""
    return StaticTree(root)


class CompressDynamic:
    """Starlette's GZipMiddleware for what is made per request (the API's JSON, the rules
    sheet, the QR codes). The client's files come compressed already and pass through it
    untouched (it leaves a response with a Content-Encoding alone), as do WebSockets; one
    it does not compress still gets its ``Vary: Accept-Encoding`` once, not twice. A
    coding refused with ``q=0`` is not used."""

    def __init__(self, app: ASGIApp, minimum_size: int = COMPRESS_FROM) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        # GZipMiddleware looks for "gzip" anywhere in Accept-Encoding ("gzip;q=0" too):
        # it and the app get the header as the codings it really accepts.
        request_headers = Headers(scope=scope)
        if "accept-encoding" in request_headers:
            accepted = ", ".join(sorted(accepted_encodings(request_headers["accept-encoding"])))
            scope = {
                **scope,
                "headers": [
                    *(
                        (name, value)
                        for name, value in scope["headers"]
                        if name.lower() != b"accept-encoding"
                    ),
                    (b"accept-encoding", accepted.encode("latin-1")),
                ],
            }

        async def send_varied_once(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                vary = headers.get("vary")
                if vary is not None:
                    names = dict.fromkeys(name.strip() for name in vary.split(",") if name.strip())
                    headers["vary"] = ", ".join(names)
            await send(message)

        await self.gzip(scope, receive, send_varied_once)
