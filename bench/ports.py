"""A free TCP port on 127.0.0.1 for a bench's own servers: one helper for every bench
(bench/load.py, soak.py, analysis_flood.py, chaos.py, cluster.py and scratchredis.py)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on now (the kernel's pick; a race with another program taking
    it before the server binds is possible, and the benches' servers then fail to start)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
