"""What a room refuses: one exception with a code for programs and a sentence for people."""

from __future__ import annotations

from typing import Any

from dudo.server.outage import RETRY_ADVICE


class RoomError(Exception):
    """A request the room refuses; ``code`` for programs, the message for people;
    ``detail`` for an action the rules refuse: which cause, to localize
    (:meth:`dudo.refusals.Refusal.to_json`)."""

    def __init__(
        self, code: str, message: str, stored: bool = True, detail: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.detail = detail
        # False: the same message can never be accepted later, so the refusal is answered
        # (and remembered in memory) without a write: a flood of them stores nothing.
        self.stored = stored


def unavailable() -> RoomError:
    """The store cannot take the room's writes just now: nothing changed, and the same
    message (same id) may be sent again; it is answered exactly once."""
    return RoomError(
        "unavailable",
        "the server cannot store games just now: nothing "
        f"changed; send it again in {RETRY_ADVICE:g} s",
        stored=False,
    )
