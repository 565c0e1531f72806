"""uvicorn's WebSocket protocol with one addition: a room writes its text frames straight to
the socket, in the room's own step, without an ASGI message for each.

Why: an action at a table of four sends about six messages (a state per seat, an ack,
the next round's states), and through ASGI each one is a coroutine of ours, a message
dict, uvicorn's ``send`` coroutine with its wait for the socket to be writable, and
websockets' frame object serialized in Python: most of the server's CPU per action beyond
the engine and the store (docs/benchmarks.md, issue 23). A server-to-client text frame
without extensions is only a two-to-ten-byte header in front of the UTF-8 text, so this
writes that, and nothing else changes: the handshake, pings, reading, closing and every
other send still go through uvicorn and websockets as before.

The addition is an ASGI extension (the scope's ``extensions`` are how a server offers more
than the spec): ``scope["extensions"][DIRECT_TEXT]`` is a plain function that takes the
frames' texts as bytes (one or more, written in order in one write) and returns True when
it wrote them, or False when it wrote none (the
socket is closing or closed, its write buffer is full, or something negotiated on it
changes the frames): the caller then sends through ASGI as usual, which waits for the
buffer and raises on a closed socket as before. Apps and servers without it (the test
client, another ASGI server) simply never see the key.

It relies on attributes of uvicorn's sans-I/O protocol that are not a public API
(``conn``, ``transport``, ``writable``, ``close_sent``, ``disconnected``, ``scope``).
:func:`direct_frames_protocol` checks for them on the installed uvicorn and gives back
uvicorn's own protocol, unchanged, when any is missing.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from typing import Any

from dudo.server.web.table_socket import DIRECT_TEXT

logger = logging.getLogger("dudo.server")

_TEXT_FIN = 0x81  # FIN set, opcode 1 (text); a server's frames are never masked
_LENGTH_16 = struct.Struct("!BBH")
_LENGTH_64 = struct.Struct("!BBQ")


def frame_header(length: int) -> bytes:
    """The header of one unmasked, unfragmented text frame of ``length`` bytes (RFC 6455,
    section 5.2)."""
    if length < 126:
        return bytes((_TEXT_FIN, length))
    if length < 1 << 16:
        return _LENGTH_16.pack(_TEXT_FIN, 126, length)
    return _LENGTH_64.pack(_TEXT_FIN, 127, length)


_NEEDED = (
    "handle_connect",
    "handshake_complete",
    "initial_response",
    "writable",
    "close_sent",
    "disconnected",
    "conn",
    "transport",
)


def direct_frames_protocol() -> type[asyncio.Protocol] | str:
    """The WebSocket protocol class for ``uvicorn.Config(ws=...)``: uvicorn's sans-I/O
    protocol with the direct text frames, or ``"auto"`` (uvicorn's own choice) when the
    installed uvicorn or websockets does not look as this module expects."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import (
            WebSocketsSansIOProtocol,
        )
        from websockets.protocol import State
    except ImportError:
        return "auto"
    probe = {name for name in _NEEDED if hasattr(WebSocketsSansIOProtocol, name)}
    # Instance attributes are set in __init__: look for them in its code's names.
    init_names = set(WebSocketsSansIOProtocol.__init__.__code__.co_names)
    missing = [name for name in _NEEDED if name not in probe and name not in init_names]
    if missing:
        logger.warning(
            "uvicorn's WebSocket protocol lacks %s: tables send through ASGI", ", ".join(missing)
        )
        return "auto"

    open_state = State.OPEN

    class DirectFramesProtocol(WebSocketsSansIOProtocol):
        """uvicorn's sans-I/O WebSocket protocol, offering :data:`DIRECT_TEXT`."""

        def handle_connect(self, event: Any) -> None:
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:  # an accepted upgrade (a refused one has no scope)
                scope["extensions"][DIRECT_TEXT] = self.write_text

        def write_text(self, *payloads: bytes) -> bool:
            """Write text frames now, one for each payload, in one write to the socket (so
            an action's ack and the state after it go out in one system call); False
            (nothing written) when they must go through ASGI instead."""
            conn = self.conn
            if (
                not self.handshake_complete  # accepted (the room writes only after that)
                or self.initial_response is not None  # a refusal's HTTP response instead
                or self.close_sent
                or self.disconnected
                or not self.writable.is_set()
                or conn.state is not open_state
                or conn.extensions  # (uvicorn never sends a fragmented message)
                or self.transport.is_closing()
            ):
                return False
            if len(payloads) == 1:
                payload = payloads[0]
                self.transport.write(frame_header(len(payload)) + payload)
            else:
                self.transport.write(b"".join(frame_header(len(p)) + p for p in payloads))
            return True

    return DirectFramesProtocol
