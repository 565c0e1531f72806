"""A room's link as a QR code: the share panel's image, so the host's phone can show the
room to a friend's camera (``GET /r/{code}/qr.svg``, docs/web.md, "Sharing a room").

The code encodes exactly the link the panel shows: ``<origin>/r/<CODE>``, and the host's
``?invite=<key>`` (the key that lets a friend into a locked room). The page sends its own
origin (``location.origin``), which must be this site as the request reached it (the rule
that decides whether that page may open the table's socket, dudo.server.web.callers); the room
and the key are checked by the server, so the image never shows a link the panel could
not show.
"""

from __future__ import annotations

import io
from functools import lru_cache
from urllib.parse import quote, urlsplit

import segno

# Medium error correction at least (segno raises it when that costs no extra size): the
# code survives a smudge or a glare on the screen it is shown on.
ERROR_CORRECTION = "m"
# What encodeURIComponent leaves as it is (the page encodes the key with it).
UNESCAPED = "-_.!~*'()"
QUIET_ZONE = 4  # modules of white around it, as the standard asks


def clean_origin(text: str) -> str | None:
    """``text`` if it is exactly an origin (``http[s]://host[:port]``: no path, query,
    user or trailing slash), else None."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if (
        parts.scheme not in ("http", "https")
        or not parts.netloc
        or "@" in parts.netloc
        or text != f"{parts.scheme}://{parts.netloc}"
    ):
        return None
    return text


def share_link(origin: str, code: str, invite: str | None = None) -> str:
    """The room's link as the share panel writes it (web/js/table.js, shareLink)."""
    query = f"?invite={quote(invite, safe=UNESCAPED)}" if invite else ""
    return f"{origin}/r/{code}{query}"


@lru_cache(maxsize=512)
def qr_svg(link: str) -> bytes:
    """``link`` as a QR code in SVG: black on white whatever the page's colours, sized by
    its viewBox (the page decides how big it is drawn)."""
    symbol = segno.make(link, error=ERROR_CORRECTION)
    out = io.BytesIO()
    symbol.save(
        out,
        kind="svg",
        xmldecl=False,
        omitsize=True,
        border=QUIET_ZONE,
        dark="#000",
        light="#fff",
        svgclass=None,
        lineclass=None,
    )
    return out.getvalue()
