"""/healthz for load balancers and /metrics for Prometheus (its text format)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from dudo import __version__
from dudo.server.outage import within
from dudo.server.protocol import PROTOCOL_VERSION
from dudo.server.web.state import Server, server_of

# /healthz waits at most this long for the database (and Redis), so it answers within 1 s.
HEALTH_PATIENCE = 0.8


async def answers(check: Awaitable[Any], patience: float = HEALTH_PATIENCE) -> bool:
    """Whether a probe comes back true in time (a blackholed database or Redis must
    not hold /healthz up: it answers within a second whatever they do)."""
    try:
        return bool(await within(check, patience))
    except Exception:
        return False


async def database_answers(server: Server) -> bool:
    """One round trip to the database."""
    await server.live.store.is_live("....")  # one round trip; no room has that code
    return True


async def health(request: Request) -> Response:
    server = server_of(request)
    lobby = server.lobby
    answer: dict[str, Any] = {
        "status": "ok",
        "version": __version__,
        "protocol": PROTOCOL_VERSION,
        "rooms": len(lobby.rooms),
    }
    cluster = server.live.cluster
    # Healthy when the database answers (one round trip) and, in a cluster, Redis
    # does and the node holds its lease: a load balancer stops sending it players
    # otherwise. Both probes run at once, each for at most HEALTH_PATIENCE.
    probes = [answers(database_answers(server))]
    if cluster is not None:
        probes.append(answers(cluster.ping()))
    database, *rest = await asyncio.gather(*probes)
    answer["database"] = database
    if cluster is None:
        return JSONResponse(
            answer | {"status": "ok" if database else "unhealthy"},
            status_code=200 if database else 503,
        )
    redis_ok = rest[0]
    healthy = redis_ok and database and cluster.healthy and not lobby.draining
    answer.update(
        status="ok" if healthy else "unhealthy",
        node=cluster.node_id,
        redis=redis_ok,
        database=database,
        lease=cluster.healthy,
        draining=lobby.draining,
    )
    return JSONResponse(answer, status_code=200 if healthy else 503)


async def metrics_endpoint(request: Request) -> Response:
    server = server_of(request)
    running, metrics, analyses = server.live, server.metrics, server.analyses
    lobby, gate, store_ = running.lobby, server.gate, running.store
    rooms = lobby.rooms.values()
    lines = [
        "# TYPE dudo_rooms gauge",
        f"dudo_rooms {len(lobby.rooms)}",
        "# TYPE dudo_rooms_playing gauge",
        f"dudo_rooms_playing {sum(1 for r in rooms if r.status == 'playing')}",
        "# TYPE dudo_sockets gauge",
        f"dudo_sockets {metrics.sockets}",
        "# TYPE dudo_sockets_refused_total counter",
        f"dudo_sockets_refused_total {gate.refused_sockets}",
        "# TYPE dudo_connections_dropped_total counter",
        f"dudo_connections_dropped_total {gate.dropped_connections}",
        "# TYPE dudo_room_creations_refused_total counter",
        f"dudo_room_creations_refused_total {lobby.refused_creations}",
        "# TYPE dudo_messages_total counter",
        f"dudo_messages_total {metrics.messages}",
        "# TYPE dudo_messages_rejected_total counter",
        f"dudo_messages_rejected_total {metrics.rejected}",
        "# TYPE dudo_store_commits_total counter",
        f"dudo_store_commits_total {getattr(store_, 'commits', 0)}",
        "# TYPE dudo_store_entries_total counter",
        f"dudo_store_entries_total {getattr(store_, 'appended', 0)}",
        "# TYPE dudo_store_slowest_commit_seconds gauge",
        f"dudo_store_slowest_commit_seconds {getattr(store_, 'slowest_commit', 0.0):.4f}",
        "# TYPE dudo_store_slow_commits_total counter",
        f"dudo_store_slow_commits_total {getattr(store_, 'slow_commits', 0)}",
        # Python's own allocations, to tell a leak (these grow) from memory the
        # allocator keeps for reuse (these fall back while the RSS stays).
        "# TYPE dudo_python_allocated_blocks gauge",
        f"dudo_python_allocated_blocks {sys.getallocatedblocks()}",
        "# TYPE dudo_uptime_seconds gauge",
        f"dudo_uptime_seconds {time.time() - metrics.started:.0f}",
        *(running.collector.metrics() if running.collector is not None else []),
        *server.refusals.metrics(),
        "# TYPE dudo_analyses_made_total counter",
        f"dudo_analyses_made_total {analyses.made}",
        "# TYPE dudo_analyses_refused_total counter",
        *(
            f'dudo_analyses_refused_total{{reason="{reason}"}} {count}'
            for reason, count in sorted(
                {**analyses.refused, "too_many_requests": analyses.refused_requests}.items()
            )
        ),
        *lobby.health.metrics(),
        *cluster_metrics(server),
    ]
    return PlainTextResponse("\n".join(lines) + "\n")


def cluster_metrics(server: Server) -> list[str]:
    """A cluster node's own lines: its lease, the rooms it took over, what it relayed."""
    running = server.live
    cluster, relay, keeper = running.cluster, running.relay, running.keeper
    if cluster is None or relay is None:
        return []
    return [
        "# TYPE dudo_node_lease gauge",
        f"dudo_node_lease {int(cluster.healthy)}",
        "# TYPE dudo_node_leases_lost_total counter",
        f"dudo_node_leases_lost_total {cluster.lease_lost}",
        "# TYPE dudo_lease_thread_renewals_total counter",
        f"dudo_lease_thread_renewals_total {keeper.renewals if keeper else 0}",
        "# TYPE dudo_rooms_taken_over_total counter",
        f"dudo_rooms_taken_over_total {running.lobby.adopted}",
        "# TYPE dudo_relayed_requests_total counter",
        f"dudo_relayed_requests_total {relay.requests}",
        "# TYPE dudo_relayed_sockets gauge",
        f"dudo_relayed_sockets {relay.sockets}",
        "# TYPE dudo_relayed_sockets_total counter",
        f"dudo_relayed_sockets_total {relay.sockets_total}",
    ]
