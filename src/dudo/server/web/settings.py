"""How the server runs (``ServerSettings``), read from DUDO_* environment variables by
``dudo serve`` and given to ``create_app``."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from dudo.background import background_priority
from dudo.bots import solved
from dudo.server.cluster.presence import ClusterSettings
from dudo.server.guard.gate import GateLimits
from dudo.server.site.lobby import SiteLimits
from dudo.server.table.room import RoomConfig

DEFAULT_DATABASE = "sqlite:///dudo.db"


@dataclass
class ServerSettings:
    """How the server runs; ``from_env`` reads DUDO_DATABASE and friends."""

    database: str = DEFAULT_DATABASE
    room: RoomConfig = field(default_factory=RoomConfig)
    gate: GateLimits = field(default_factory=GateLimits)
    # "clock": the server's own collector policy (dudo.server.collector); "python": leave
    # Python's garbage collector as it is (for comparison; DUDO_GC=python).
    gc_policy: str = "clock"
    # Origins (``https://host[:port]``) whose pages may open a WebSocket besides the site's
    # own (the Host the request came to); DUDO_ALLOWED_ORIGINS, comma separated.
    allowed_origins: tuple[str, ...] = ()
    # The reverse proxies in front (--forwarded-allow-ips): only they may name the client's
    # address, scheme and public host (dudo.server.guard.proxies).
    proxies: tuple[str, ...] = ()
    # The addresses friends can open (``http://ADDRESS:PORT``) when ``dudo serve`` listens
    # on all interfaces: a host whose own page is on localhost shares these instead, since
    # a localhost link means nothing on a friend's phone (GET /api/share, the share panel).
    # DUDO_SHARE_ORIGINS names them instead (comma separated), e.g. a name on the home
    # network (http://laptop.local:8000) or a port forwarded from the router.
    share_origins: tuple[str, ...] = ()
    limits: SiteLimits = field(default_factory=SiteLimits)
    sweep_interval: float = 60.0  # seconds between looks for idle rooms (DUDO_SWEEP_INTERVAL)
    # WebSocket keepalive: a ping every ws_ping_interval seconds, and a socket that does not
    # answer within ws_ping_timeout is closed (1011). DUDO_WS_PING_INTERVAL/_TIMEOUT.
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    # A cluster node (dudo serve --cluster): Redis's URL, and the address other nodes
    # reach this one at (http://host:port). None: one process holding every room.
    cluster: str | None = None
    advertise: str | None = None
    cluster_settings: ClusterSettings = field(default_factory=ClusterSettings)
    # Games' analyses (dudo.server.web.replays): how many are kept in memory
    # (DUDO_ANALYSIS_CACHE), made for one client at once (DUDO_ANALYSES_PER_CLIENT), and
    # asked for by one client in a burst (DUDO_ANALYSIS_REQUESTS).
    analysis_cache: int = 128
    analyses_per_client: int = 4
    analysis_requests: int = 20

    @classmethod
    def from_env(cls, database: str | None = None) -> ServerSettings:
        settings = cls(
            database=database or os.environ.get("DUDO_DATABASE", DEFAULT_DATABASE),
            gc_policy=os.environ.get("DUDO_GC", "clock"),
            allowed_origins=parse_origins(os.environ.get("DUDO_ALLOWED_ORIGINS", "")),
            share_origins=parse_origins(
                os.environ.get("DUDO_SHARE_ORIGINS", ""), "DUDO_SHARE_ORIGINS"
            ),
        )
        if settings.gc_policy not in ("clock", "python"):
            raise ValueError(f"DUDO_GC must be 'clock' or 'python', not {settings.gc_policy!r}")
        for name in (
            "bot_delay",
            "reveal_pause",
            "seed_window",
            "grace",
            "quick_fill",
            "close_after_game",
            "close_when_idle",
            "close_empty_lobby",
            "write_patience",
        ):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings.room, name, _env_number(name, value, float, "number of seconds"))
        for name in ("lease", "renew_every", "rescan_every", "stall_limit"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                number = _env_number(name, value, float, "number")
                if number <= 0:
                    raise ValueError(f"DUDO_{name.upper()} must be a positive number of seconds")
                setattr(settings.cluster_settings, name, number)
        value = os.environ.get("DUDO_REDIS_CONNECTIONS")
        if value is not None:
            settings.cluster_settings.redis_connections = _env_number(
                "redis_connections", value, int, "whole number"
            )
            if settings.cluster_settings.redis_connections < 1:
                raise ValueError("DUDO_REDIS_CONNECTIONS must be at least 1")
        for name in ("ws_ping_interval", "ws_ping_timeout"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                number = _env_number(name, value, float, "number")
                if number <= 0:
                    raise ValueError(f"DUDO_{name.upper()} must be a positive number of seconds")
                setattr(settings, name, number)
        value = os.environ.get("DUDO_SWEEP_INTERVAL")
        if value is not None:
            settings.sweep_interval = _env_number("sweep_interval", value, float, "number")
            if settings.sweep_interval <= 0:
                raise ValueError("DUDO_SWEEP_INTERVAL must be a positive number of seconds")
        for name, kind in GateLimits.__annotations__.items():
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                number = float if kind == "float" else int
                setattr(settings.gate, name, _env_number(name, value, number, "number"))
        value = os.environ.get("DUDO_BOT_BUDGET_MS")
        if value is not None:
            settings.room.bot_budget_ms = (
                None
                if value.strip().lower() == "none"
                else _env_number("bot_budget_ms", value, float, "number of milliseconds or none")
            )
        # Read by the endgame solves' and the analyses' processes as they start, and by the
        # hard bots' endgame solves as they solve: a value they would refuse is refused
        # here, at the server's start, in one line (not by a bot in the middle of a game).
        background_priority()
        solved.cache_limit_bytes()
        solved.max_nodes()
        solved.max_windows()
        solved.window_iterations()
        value = os.environ.get("DUDO_MAX_SPECTATORS")
        if value is not None:
            settings.room.max_spectators = _env_number("max_spectators", value, int, "whole number")
        for name in (
            "max_rooms",
            "max_lobbies",
            "creation_burst",
            "guesses_per_client",
            "guesses_per_address",
            "ipv4_prefix",
            "ipv6_prefix",
        ):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings.limits, name, _env_number(name, value, int, "whole number"))
        for name in ("creations_per_minute", "closed_retention", "group_share", "evict_idle_after"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings.limits, name, _env_number(name, value, float, "number"))
        for name in ("analysis_cache", "analyses_per_client", "analysis_requests"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings, name, _env_number(name, value, int, "whole number"))
                if getattr(settings, name) < 1:  # 0 would refuse (or not keep) every one
                    raise ValueError(f"DUDO_{name.upper()} must be at least 1, not {value!r}")
        if not (0 <= settings.limits.ipv4_prefix <= 32 and 0 <= settings.limits.ipv6_prefix <= 128):
            raise ValueError("DUDO_IPV4_PREFIX is 0..32 and DUDO_IPV6_PREFIX 0..128")
        if not 0 < settings.limits.group_share <= 1:
            raise ValueError("DUDO_GROUP_SHARE is a share of the lobbies: above 0, at most 1")
        return settings


def _env_number(name: str, value: str, kind: type[float] | type[int], what: str) -> Any:
    """A DUDO_* setting as a number, or a ValueError that names the setting; ``what`` says
    what it must be, after "a" (``number of seconds``, ``whole number``). Infinity (``inf``,
    or ``1e400``) is refused as no finite number: ``DUDO_BOT_DELAY=inf`` was taken, a
    delay no bot would ever end."""
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or number != number:  # not a number at all, or NaN
        raise ValueError(f"DUDO_{name.upper()} must be a {what}, not {value!r}")
    if not math.isfinite(number):
        raise ValueError(f"DUDO_{name.upper()} must be a finite {what}, not {value!r}")
    if number < 0:
        raise ValueError(f"DUDO_{name.upper()} must not be negative, not {value!r}")
    return number


def parse_origins(text: str, variable: str = "DUDO_ALLOWED_ORIGINS") -> tuple[str, ...]:
    """``https://a.example, http://localhost:8000`` as origins (lower case, no slash);
    raises ValueError (naming ``variable``) for an entry that is not a scheme and a host."""
    origins = []
    for entry in text.split(","):
        origin = entry.strip().lower().rstrip("/")
        if not origin:
            continue
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path:
            raise ValueError(
                f"{variable}: {entry.strip()!r} is not an origin "
                "like https://dudo.example or http://localhost:8000"
            )
        origins.append(origin)
    return tuple(origins)
