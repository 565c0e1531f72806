"""Redis under load: a node's pool is bounded and waits for a free connection instead of
failing with "Too many connections" (a busy node once logged cluster_unreachable for it);
passwords in the URL work, and rediss:// means TLS. A real redis-server."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import SSLConnection
from redis.exceptions import ConnectionError as RedisConnectionError

from clusterkit import need_redis, redis_server
from dudo.server.cluster.presence import Cluster, ClusterSettings
from serverkit import free_port


def test_a_small_pool_at_saturation_waits_instead_of_failing(tmp_path: Path) -> None:
    with redis_server(tmp_path) as url:

        async def scenario() -> None:
            # What a plain pool of that size does under the same load: it fails.
            plain = Redis(connection_pool=ConnectionPool.from_url(url, max_connections=2))
            results = await asyncio.gather(
                *(plain.blpop([f"none{n}"], timeout=0.2) for n in range(20)), return_exceptions=True
            )
            assert any(
                isinstance(result, RedisConnectionError) and "Too many connections" in str(result)
                for result in results
            )
            await plain.aclose(close_connection_pool=True)
            # The node's own pool: 2 connections, 60 commands at once, each holding its
            # connection a moment (a blocking pop), every one answered.
            cluster = Cluster(url, "http://127.0.0.1:1", ClusterSettings(redis_connections=2))
            try:
                answers = await asyncio.gather(
                    *(cluster.redis.blpop([f"none{n}"], timeout=0.05) for n in range(30)),
                    *(cluster.take_token(f"t{n}", 1.0, 5) for n in range(30)),
                )
                assert answers[:30] == [None] * 30 and all(answers[30:])
                pool = cluster.redis.connection_pool
                opened = len(pool._available_connections) + len(pool._in_use_connections)
                assert pool.max_connections == 2 and opened <= 2
            finally:
                await cluster.close()

        asyncio.run(scenario())


def test_a_password_in_the_url_is_used(tmp_path: Path) -> None:
    binary = need_redis()
    port = free_port()
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
            "--requirepass",
            "s3cret",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 10
        while (
            subprocess.run(
                ["redis-cli", "-p", str(port), "-a", "s3cret", "ping"],
                capture_output=True,
                text=True,
            ).stdout.strip()
            != "PONG"
        ):
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)

        async def reaches(url: str) -> bool:
            cluster = Cluster(url, "http://127.0.0.1:1")
            try:
                return await cluster.ping()
            finally:
                await cluster.close()

        assert asyncio.run(reaches(f"redis://:s3cret@127.0.0.1:{port}/0"))
        assert not asyncio.run(reaches(f"redis://:wrong@127.0.0.1:{port}/0"))
    finally:
        process.kill()
        process.wait(timeout=10)


def test_rediss_means_tls() -> None:
    cluster = Cluster(
        "rediss://:pw@redis.example:6380/2",
        "http://127.0.0.1:1",
        ClusterSettings(redis_connections=8),
    )
    pool = cluster.redis.connection_pool
    assert pool.connection_class is SSLConnection
    assert pool.connection_kwargs["password"] == "pw" and pool.connection_kwargs["db"] == 2
    assert pool.max_connections == 8


def test_the_pool_size_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from dudo.server.web.app import ServerSettings

    monkeypatch.setenv("DUDO_REDIS_CONNECTIONS", "12")
    assert ServerSettings.from_env().cluster_settings.redis_connections == 12
    monkeypatch.setenv("DUDO_REDIS_CONNECTIONS", "0")
    with pytest.raises(ValueError, match="DUDO_REDIS_CONNECTIONS"):
        ServerSettings.from_env()
