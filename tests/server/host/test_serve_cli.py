"""``dudo serve`` as people meet it: a party on the home network in one command (every
address of the machine, a QR code), a banner and log lines a person can read on a terminal
and JSON lines elsewhere, every start failure in one line, and no password anywhere.

The servers here are real processes; ``--lan`` listens on all interfaces for the few
seconds a test takes, as the command is meant to.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import segno
from typer.testing import CliRunner

import dudo.server.host.nodes
from clusterkit import FAST_CLUSTER, need_redis, shared_database
from dudo.cli import app
from dudo.server.host.addresses import (
    ListenError,
    check_listen,
    machine_addresses,
    parse_ip_json,
    shareable,
)
from serverkit import free_port

runner = CliRunner()
POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")
QUICK = {
    "DUDO_BOT_DELAY": "0",
    "DUDO_REVEAL_PAUSE": "0",
    "DUDO_SEED_WINDOW": "0",
    "DUDO_GC": "python",
}


# -- this machine's addresses -------------------------------------------------------------


def test_the_addresses_to_share_leave_out_the_loopback_and_put_the_way_out_first() -> None:
    found = [
        "127.0.0.1",
        "10.0.0.7",
        "169.254.3.4",
        "192.168.1.20",
        "127.0.1.1",
        "203.0.113.9",
        "192.168.1.20",
        "fe80::1",
        "not an address",
        "0.0.0.0",
    ]
    assert shareable(found) == ["10.0.0.7", "192.168.1.20", "203.0.113.9", "169.254.3.4"]
    assert shareable(found, preferred="192.168.1.20") == [
        "192.168.1.20",
        "10.0.0.7",
        "203.0.113.9",
        "169.254.3.4",
    ]
    assert shareable(["127.0.0.1", "::1"]) == []


IP_JSON = json.dumps(
    [
        {
            "ifindex": 1,
            "ifname": "lo",
            "addr_info": [{"family": "inet", "local": "127.0.0.1", "prefixlen": 8}],
        },
        {
            "ifindex": 2,
            "ifname": "wlan0",
            "addr_info": [
                {"family": "inet", "local": "192.168.1.20", "prefixlen": 24},
                {"family": "inet", "local": "192.168.1.21", "prefixlen": 24, "label": "wlan0:1"},
                {"family": "inet6", "local": "fe80::1", "prefixlen": 64},
            ],
        },
        {"ifindex": 3, "ifname": "eth0", "addr_info": []},
        {
            "ifindex": 4,
            "ifname": "cni-podman0",
            "addr_info": [{"family": "inet", "local": "10.88.0.1", "prefixlen": 16}],
        },
        {
            "ifindex": 5,
            "ifname": "docker0",
            "addr_info": [{"family": "inet", "local": "172.17.0.1", "prefixlen": 16}],
        },
    ]
)


def test_the_output_of_ip_addr_gives_every_ipv4_address_aliases_too() -> None:
    # Container bridges are left out: no friend's phone reaches them.
    assert parse_ip_json(IP_JSON) == ["127.0.0.1", "192.168.1.20", "192.168.1.21"]
    assert parse_ip_json("not json") == []
    assert parse_ip_json('{"a": 1}') == []


def test_the_machines_addresses_are_its_own() -> None:
    addresses = machine_addresses()
    assert "127.0.0.1" not in addresses
    for address in addresses:  # each one really is this machine's: it can listen there
        with socket.socket() as probe:
            probe.bind((address, 0))


def test_listening_is_checked_before_anything_starts() -> None:
    check_listen("127.0.0.1", free_port())
    with pytest.raises(ListenError, match="not an address of this machine") as caught:
        check_listen("203.0.113.7", free_port())  # TEST-NET-3: nobody's address
    assert caught.value.exit_code == 2
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ListenError, match="already in use") as caught:
            check_listen("127.0.0.1", taken.getsockname()[1])
    assert caught.value.exit_code == 1


# -- bad input: one line, exit 2, nothing changed -------------------------------------------

BAD_INPUT = {
    "an unknown log format": (
        ["--log-format", "yaml"],
        "--log-format must be text, json or auto, not 'yaml'",
    ),
    "an address that is not this machine's": (
        ["--host", "203.0.113.7"],
        "is not an address of this machine",
    ),
    "a host name that is nobody's": (
        ["--host", "no-such-host.invalid"],
        "not an address or a known host name",
    ),
    "--lan with another address": (["--lan", "--host", "127.0.0.1"], "takes no --host"),
    "a database URL of another kind": (
        ["--database", "mysql://dudo:s3cret-pw@db/dudo"],
        "unknown database URL 'mysql://dudo:***@db/dudo'",
    ),
    "a database URL that does not parse": (
        ["--database", "postgresql://dudo:s3cret-pw@[db/x"],
        "not a valid URL",
    ),
    "a SQLite URL without a file": (["--database", "sqlite://"], "names no file"),
    # uvicorn keeps a proxy address it cannot read as a literal no client ever matches:
    # the server started and silently believed no proxy.
    "a proxy that is no address": (
        ["--forwarded-allow-ips", "not an ip"],
        "--forwarded-allow-ips (DUDO_FORWARDED_ALLOW_IPS): 'not an ip' is not an IP address",
    ),
    "a proxy named by its host name": (
        ["--forwarded-allow-ips", "127.0.0.1,proxy.local"],
        "'proxy.local' is not an IP address or network",
    ),
    "a proxy network with host bits": (
        ["--forwarded-allow-ips", "10.0.0.1/8"],
        "(did you mean 10.0.0.0/8?)",
    ),
    "every proxy and one more": (["--forwarded-allow-ips", "*,10.0.0.1"], "stands alone"),
}


def started(launch: object) -> None:
    raise AssertionError(f"the server started on {launch!r}")


@pytest.mark.parametrize("name", BAD_INPUT)
def test_bad_input_is_one_line_and_changes_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args, fragment = BAD_INPUT[name]
    monkeypatch.setattr(dudo.server.host.nodes, "serve", started)  # a failure, not a hang
    monkeypatch.chdir(tmp_path)  # the default database, sqlite:///dudo.db, would go here
    result = runner.invoke(app, ["serve", "--port", str(free_port()), *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("dudo: error: ") and fragment in result.stderr, result.stderr
    assert "s3cret-pw" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_ping_setting_that_is_no_positive_number_is_one_line(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DUDO_WS_PING_TIMEOUT", value)
    result = runner.invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("dudo: error: DUDO_WS_PING_TIMEOUT must ")
    assert len(result.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_proxies_from_the_environment_are_checked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dudo.server.host.nodes, "serve", started)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DUDO_FORWARDED_ALLOW_IPS", "10.0.0.5;10.0.0.6")
    result = runner.invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(
        "dudo: error: --forwarded-allow-ips (DUDO_FORWARDED_ALLOW_IPS): '10.0.0.5;10.0.0.6' "
        "is not an IP address or network"
    )
    assert len(result.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_proxy_addresses_and_networks_reach_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    launched: list[list[str]] = []
    monkeypatch.setattr(
        dudo.server.host.nodes, "serve", lambda launch: launched.append(launch.proxies)
    )
    for value in ("127.0.0.1", " 10.0.0.5, ::1 ,192.168.0.0/16,fd00::/8,", "*", ""):
        port = str(free_port())
        args = ["--port", port, "--database", "memory://", "--forwarded-allow-ips", value]
        result = runner.invoke(app, ["serve", *args])
        assert result.exit_code == 0, result.output
    assert launched == [
        ["127.0.0.1"],
        ["10.0.0.5", "::1", "192.168.0.0/16", "fd00::/8"],
        ["*"],
        [],
    ]


def test_a_background_priority_it_does_not_know_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Read by the solves' and analyses' processes as they start: refused at the server's
    # start, not as a worker that fails later.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DUDO_BACKGROUND_PRIORITY", "high")
    result = runner.invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("dudo: error: DUDO_BACKGROUND_PRIORITY must be one of ")
    assert len(result.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("variable", "value", "words"),
    [
        ("DUDO_ANALYSIS_CACHE", "abc", "must be a whole number, not 'abc'"),
        ("DUDO_ANALYSIS_CACHE", "0", "must be at least 1, not '0'"),
        ("DUDO_ANALYSES_PER_CLIENT", "-1", "must not be negative, not '-1'"),
        ("DUDO_ANALYSES_PER_CLIENT", "0", "must be at least 1, not '0'"),
        ("DUDO_ANALYSIS_REQUESTS", "1.5", "must be a whole number, not '1.5'"),
    ],
)
@pytest.mark.timeout(60)  # a server that took the value would run until stopped
def test_an_analysis_setting_it_cannot_use_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, words: str
) -> None:
    # DUDO_ANALYSIS_CACHE=abc was a 67-line traceback as the server imported its analyses,
    # and DUDO_ANALYSES_PER_CLIENT=-1 was taken without a word.
    monkeypatch.setattr(dudo.server.host.nodes, "serve", started)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, value)
    result = runner.invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"dudo: error: {variable} {words}\n", result.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_analysis_settings_reach_the_servers_analyses(monkeypatch: pytest.MonkeyPatch) -> None:
    from dudo.server.web.app import create_app
    from dudo.server.web.settings import ServerSettings

    assert create_app(ServerSettings(database="memory://")).state.server.analyses.size == 128
    monkeypatch.setenv("DUDO_ANALYSIS_CACHE", "3")
    monkeypatch.setenv("DUDO_ANALYSES_PER_CLIENT", "5")
    monkeypatch.setenv("DUDO_ANALYSIS_REQUESTS", "7")
    analyses = create_app(ServerSettings.from_env("memory://")).state.server.analyses
    assert analyses.size == 3
    assert (analyses.clients.burst, analyses.requests.burst) == (5, 7)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DUDO_ENDGAME_MAX_NODES", "lots"),
        ("DUDO_ENDGAME_MAX_WINDOWS", "inf"),
        ("DUDO_ENDGAME_CACHE_MB", "-1"),
        ("DUDO_ENDGAME_WINDOW_ITERATIONS", "0"),
    ],
)
@pytest.mark.timeout(60)  # a server that took the value would run until stopped
def test_an_endgame_setting_the_bots_would_refuse_is_refused_at_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    # Read by a hard bot when it first meets an endgame: refused at the server's start, not
    # by a bot in the middle of someone's game.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, value)
    result = runner.invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"dudo: error: {variable} must be "), result.stderr
    assert len(result.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_the_ping_settings_reach_uvicorn(monkeypatch: pytest.MonkeyPatch) -> None:
    from dudo.server.host.nodes import Launch, uvicorn_config
    from dudo.server.web.app import ServerSettings
    from serverkit import make_app

    launch = Launch(host="127.0.0.1", port=free_port(), database="memory://")
    config = uvicorn_config(launch, make_app())
    assert (config.ws_ping_interval, config.ws_ping_timeout) == (20.0, 20.0)
    monkeypatch.setenv("DUDO_WS_PING_INTERVAL", "2.5")
    monkeypatch.setenv("DUDO_WS_PING_TIMEOUT", "4")
    settings = ServerSettings.from_env("memory://")
    config = uvicorn_config(launch, make_app(), settings)
    assert (config.ws_ping_interval, config.ws_ping_timeout) == (2.5, 4.0)


def test_help_says_what_each_log_format_does() -> None:
    result = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.stdout.replace("│", " ").split())  # Rich frames the help
    assert "--log-format" in text and "auto (the default)" in text
    assert "JSON lines" in text and "--lan" in text


# -- real processes ---------------------------------------------------------------------------


class Output:
    """Everything a stream of the server printed, read by a thread as it comes."""

    def __init__(self, read: Callable[[], bytes]) -> None:
        self.chunks: list[bytes] = []
        self.thread = threading.Thread(target=self._pump, args=(read,), daemon=True)
        self.thread.start()

    def _pump(self, read: Callable[[], bytes]) -> None:
        while True:
            try:
                chunk = read()
            except OSError:  # a terminal whose other end closed
                return
            if not chunk:
                return
            self.chunks.append(chunk)

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")

    def wait_for(self, fragment: str, process: subprocess.Popen[bytes], timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while fragment not in self.text:
            if process.poll() is not None or time.monotonic() > deadline:
                time.sleep(0.2)
                raise AssertionError(f"no {fragment!r} in the output:\n{self.text}")
            time.sleep(0.05)
        return self.text


@contextlib.contextmanager
def serving(
    args: list[str],
    env: dict[str, str] | None = None,
    terminal: bool = False,
    cwd: Path | None = None,
) -> Iterator[tuple[subprocess.Popen[bytes], Output, Output]]:
    """``dudo serve ARGS``; yields (process, stdout, stderr). On a pseudo-terminal when
    ``terminal`` (both streams are the terminal then: the two Outputs are the same)."""
    environment = {**os.environ, **QUICK, **(env or {})}
    environment.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "dudo", "serve", *args]
    if terminal:
        controller, child = pty.openpty()
        process = subprocess.Popen(
            command, env=environment, cwd=cwd, stdin=subprocess.DEVNULL, stdout=child, stderr=child
        )
        os.close(child)
        out = err = Output(lambda: os.read(controller, 65536))
    else:
        process = subprocess.Popen(
            command,
            env=environment,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        out, err = Output(process.stdout.read1), Output(process.stderr.read1)
    try:
        yield process, out, err
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        if terminal:
            out.thread.join(timeout=5)
            os.close(controller)


def stop(process: subprocess.Popen[bytes]) -> int:
    """Ctrl-C, as a person stops it."""
    process.send_signal(signal.SIGINT)
    return process.wait(timeout=30)


def qr_rows(lines: list[str]) -> list[list[bool]]:
    """The modules (True: dark) of a QR code drawn with half blocks, two rows a line."""
    halves = {"█": (False, False), " ": (True, True), "▀": (False, True), "▄": (True, False)}
    grid: list[list[bool]] = []
    for line in lines:
        grid += [[halves[c][0] for c in line], [halves[c][1] for c in line]]
    return grid


def printed_addresses(text: str, port: int) -> list[str]:
    """The URLs a banner offers to share, in its order (this computer's own left out)."""
    found = re.findall(rf"http://(\d+\.\d+\.\d+\.\d+):{port}/", text)
    return [
        f"http://{address}:{port}/"
        for address in dict.fromkeys(found)
        if not address.startswith("127.")
    ]


def assert_the_machine_addresses(printed: list[str], port: int, before: list[str]) -> None:
    """The banner offers this machine's addresses. Other tests running beside this one
    may add or remove an interface (a container's bridge) meanwhile, so what it printed
    lies between the addresses found before and after it started."""
    after = machine_addresses()
    url = f"http://{{}}:{port}/".format
    steady = {url(address) for address in before if address in after}
    assert steady <= set(printed) <= {url(address) for address in [*before, *after]}


def test_a_lan_party_is_one_command(tmp_path: Path) -> None:
    port = free_port()
    addresses = machine_addresses()
    with serving(
        [
            "--lan",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{tmp_path}/d.db",
            "--log-format",
            "text",
        ]
    ) as (process, out, err):
        text = out.wait_for("Ctrl-C", process)
        lines = text.splitlines()
        assert f"is listening on all interfaces (0.0.0.0:{port})" in lines[0]
        urls = printed_addresses(text, port)
        assert_the_machine_addresses(urls, port, addresses)
        if not urls:
            assert "no network address yet" in text
        shared = [line for line in lines if any(url in line for url in urls)]
        assert len(shared) == len(urls)
        assert shared[0].split()[0] == "share" and shared[0].split()[-1] == urls[0]
        # The QR code encodes the first address, as segno draws it.
        drawn = [
            line[2:]
            for line in lines
            if line.startswith("  ") and line[2:3] in "█▀" and set(line[2:]) <= set("█▀▄ ")
        ]
        expected = [
            [bool(module) for module in row]
            for row in segno.make(urls[0], micro=False).matrix_iter(border=2)
        ]
        assert qr_rows(drawn)[: len(expected)] == expected
        assert f"let port {port} through" in text
        # The addresses to share really reach the server, and so does this computer's own.
        for url in [*urls, f"http://127.0.0.1:{port}/"]:
            response = httpx.get(f"{url}healthz", timeout=5)
            assert response.status_code == 200 and response.json()["status"] == "ok"
        # A page opened as localhost shares the printed addresses, not its own.
        share = httpx.get(f"http://127.0.0.1:{port}/api/share", timeout=5).json()
        assert [f"{origin}/" for origin in share["origins"]] == urls
        assert stop(process) == 0
        assert out.wait_for("dudo stopped", process)
    assert "Traceback" not in err.text


def test_listening_on_all_interfaces_prints_the_addresses_to_share(tmp_path: Path) -> None:
    port = free_port()
    addresses = machine_addresses()
    with serving(
        [
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--database",
            "memory://",
            "--log-format",
            "text",
        ]
    ) as (process, out, _err):
        text = out.wait_for("Ctrl-C", process)
        assert "all interfaces (0.0.0.0:" in text
        assert_the_machine_addresses(printed_addresses(text, port), port, addresses)
        share = [line for line in text.splitlines() if "localhost" in line]
        assert [line.split()[0] for line in share] == ["here"]  # not a link to share
        assert "▀" not in text  # the QR code is the party's (--lan)
        stop(process)


def test_on_a_terminal_the_banner_and_the_logs_are_for_a_person(tmp_path: Path) -> None:
    port = free_port()
    with serving(
        ["--port", str(port), "--database", f"sqlite:///{tmp_path}/d.db"], terminal=True
    ) as (process, out, _err):
        text = out.wait_for("Ctrl-C", process)
        assert "is running, for this computer only" in text
        assert f"http://localhost:{port}/" in text and "dudo serve --lan" in text
        assert f"database   sqlite:///{tmp_path}/d.db" in text
        assert "info    server_started" in text
        assert not any(line.lstrip().startswith("{") for line in text.splitlines())
        assert "Uvicorn running" not in text  # the banner says it better
        assert stop(process) == 0
        assert "dudo stopped" in out.wait_for("dudo stopped", process)


def test_off_a_terminal_the_logs_are_json_lines(tmp_path: Path) -> None:
    port = free_port()
    with serving(["--port", str(port), "--database", "memory://"]) as (process, out, err):
        err.wait_for('"listening"', process)
        stop(process)
    events = [json.loads(line) for line in err.text.splitlines()]  # every line is JSON
    listening = next(event for event in events if event.get("event") == "listening")
    assert listening["local_url"] == f"http://localhost:{port}/"
    assert listening["all_interfaces"] is False and listening["database"] == "memory://"
    assert out.text == ""


def one_line_failure(
    args: list[str], env: dict[str, str] | None = None, prelude: str = ""
) -> subprocess.CompletedProcess[str]:
    code = (
        f"{prelude}\nimport sys\nsys.argv = ['dudo', 'serve', *{args!r}]\n"
        "from dudo.cli import app\napp()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("dudo: error: "), result.stderr
    return result


def closed_port() -> int:
    return free_port()  # nothing listens there once the probe let it go


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = one_line_failure(["--port", str(port), "--database", f"sqlite:///{tmp_path}/d.db"])
    assert result.returncode == 1
    assert f"port {port} is already in use" in result.stderr


def test_an_unreachable_database_is_one_line_without_its_password() -> None:
    url = f"postgresql://dudo:s3cret-pw@127.0.0.1:{closed_port()}/dudo"
    result = one_line_failure(["--port", str(free_port()), "--database", url])
    assert result.returncode == 1
    assert "cannot reach the database postgresql://dudo:***@127.0.0.1" in result.stderr
    assert "Connection refused" in result.stderr and "s3cret-pw" not in result.stderr


def test_a_missing_driver_names_the_extra_to_install() -> None:
    result = one_line_failure(
        ["--port", str(free_port()), "--database", "postgresql://dudo:s3cret-pw@db/dudo"],
        prelude="import sys; sys.modules['asyncpg'] = None  # as if it were not installed",
    )
    assert result.returncode == 1
    assert "pip install 'dudo[postgres]'" in result.stderr
    assert "s3cret-pw" not in result.stderr


def test_an_unreachable_redis_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = f"redis://:s3cret-pw@127.0.0.1:{closed_port()}/0"
    result = one_line_failure(
        ["--port", str(free_port()), "--database", f"sqlite:///{tmp_path}/d.db", "--cluster", url]
    )
    assert result.returncode == 1
    assert "cannot reach Redis at redis://:***@127.0.0.1" in result.stderr
    assert "s3cret-pw" not in result.stderr


@pytest.mark.parametrize("where", ["a missing directory", "a file that is not a database"])
def test_a_sqlite_file_that_cannot_be_opened_is_one_line(tmp_path: Path, where: str) -> None:
    if where == "a missing directory":
        path, fragment = tmp_path / "no" / "d.db", "does not exist"
    else:
        path, fragment = tmp_path / "notes.db", "file is not a database"
        path.write_text("some words, not a database " * 100)
    result = one_line_failure(["--port", str(free_port()), "--database", f"sqlite:///{path}"])
    assert result.returncode == 1
    assert f"cannot open the database {path}" in result.stderr and fragment in result.stderr


# -- no password anywhere -----------------------------------------------------------------------


@contextlib.contextmanager
def redis_with_password(directory: Path, password: str) -> Iterator[str]:
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
            str(directory),
            "--requirepass",
            password,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            probe = subprocess.run(
                ["redis-cli", "-p", str(port), "-a", password, "--no-auth-warning", "ping"],
                capture_output=True,
                text=True,
            )
            if probe.stdout.strip() == "PONG":
                break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://:{password}@127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait(timeout=10)


def exercise(base: str) -> list[str]:
    """Some of everything a server answers: a room, a join, a refusal, health, metrics."""
    with httpx.Client(base_url=base, timeout=10) as http:
        created = http.post("/api/rooms", json={"name": "Ana", "seats": 2, "bots": [None, "easy"]})
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        answers = [
            created.text,
            http.get(f"/api/rooms/{code}").text,
            http.get("/api/rooms/ZZZZ").text,
            http.get("/healthz").text,
            http.get("/metrics").text,
        ]
    return answers


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_redis_password_appears_nowhere(tmp_path: Path, log_format: str) -> None:
    password = "s3cret-redis-pw"
    with redis_with_password(tmp_path, password) as redis_url:
        port = free_port()
        with serving(
            [
                "--port",
                str(port),
                "--database",
                f"sqlite:///{tmp_path}/d.db",
                "--cluster",
                redis_url,
                "--log-level",
                "debug",
                "--log-format",
                log_format,
            ],
            env=FAST_CLUSTER,
        ) as (process, out, err):
            (out if log_format == "text" else err).wait_for(
                "listening" if log_format == "json" else "Ctrl-C", process
            )
            answers = exercise(f"http://127.0.0.1:{port}")
            health = json.loads(answers[3])
            assert health["status"] == "ok" and health["redis"] is True
            stop(process)
    everything = "\n".join([out.text, err.text, *answers])
    assert password not in everything
    assert f"redis://:***@127.0.0.1:{redis_url.rsplit(':', 1)[1]}" in everything


@pytest.mark.skipif(not POSTGRES, reason="needs DUDO_TEST_POSTGRES (CI sets it)")
def test_a_database_password_appears_nowhere(tmp_path: Path) -> None:
    from urllib.parse import urlsplit

    assert POSTGRES is not None
    password = urlsplit(POSTGRES).password
    assert password, "DUDO_TEST_POSTGRES names a password"
    port = free_port()
    with (
        shared_database(tmp_path) as database,
        serving(  # a schema of the test's own
            [
                "--port",
                str(port),
                "--database",
                database,
                "--log-level",
                "debug",
                "--log-format",
                "text",
            ]
        ) as (process, out, err),
    ):
        text = out.wait_for("Ctrl-C", process)
        answers = exercise(f"http://127.0.0.1:{port}")
        stop(process)
    everything = "\n".join([text, out.text, err.text, *answers])
    # By its place in a URL: CI's password is "dudo", which is also the program's name.
    assert f":{password}@" not in everything
    assert "database   postgresql://dudo:***@" in text


def test_a_traceback_that_quotes_a_url_is_logged_without_its_password() -> None:
    import logging

    from dudo.server.logs import JsonFormatter, TextFormatter

    try:
        raise RuntimeError("cannot connect to postgresql://dudo:s3cret-pw@db:5432/dudo")
    except RuntimeError:
        record = logging.LogRecord(
            "dudo.test",
            logging.ERROR,
            __file__,
            1,
            "failed with redis://:s3cret-pw@cache:6379/0",
            None,
            sys.exc_info(),
        )
    for formatter in (JsonFormatter(), TextFormatter()):
        line = formatter.format(record)
        assert "s3cret-pw" not in line
        assert "postgresql://dudo:***@db:5432/dudo" in line and "redis://:***@cache" in line


def test_the_banner_for_each_kind_of_address() -> None:
    from dudo.server.host.banner import Banner

    def banner(host: str, **changes: Any) -> str:
        return Banner(
            version="9.9",
            host=host,
            port=8000,
            database="sqlite:///dudo.db",
            addresses=["192.168.1.20", "10.0.0.7"],
            **changes,
        ).text()

    local = banner("127.0.0.1")
    assert "for this computer only" in local and "http://localhost:8000/" in local
    assert "192.168.1.20" not in local and "dudo serve --lan" in local
    everywhere = banner("::")
    assert "all interfaces ([::]:8000)" in everywhere
    assert "http://192.168.1.20:8000/" in everywhere and "http://10.0.0.7:8000/" in everywhere
    one = banner("192.168.1.20")
    assert "is listening on 192.168.1.20:8000" in one and "10.0.0.7" not in one
    nowhere = Banner(
        version="9.9", host="0.0.0.0", port=8000, database="memory://", lan=True, addresses=[]
    ).text()
    assert "no network address yet" in nowhere and "█" not in nowhere
    clustered = banner("127.0.0.1", cluster="redis://:***@cache:6379/0", workers=4)
    assert "cluster    redis://:***@cache:6379/0, 4 nodes" in clustered


@pytest.mark.parametrize("password", ["sec ret", "p/w", "a@b"])
@pytest.mark.parametrize("command", ["serve", "purge", "forget"])
def test_a_password_as_typed_is_never_printed(command: str, password: str) -> None:
    """A URL as a person types it may hold a space, a "/" or an "@" in its password (a
    valid URL would percent-encode them): the password was printed whole in `serve`'s,
    `purge`'s and `forget`'s errors."""
    words = {"serve": ["serve", "--port", str(free_port())], "forget": ["forget", "ab" * 8]}
    args = words.get(command, [command])
    url = f"postgresql://dudo:{password}@127.0.0.1:{closed_port()}/dudo"
    code = (
        f"import sys\nsys.argv = ['dudo', *{args!r}, '--database', {url!r}]\n"
        "from dudo.cli import app\napp()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ
    )
    assert result.returncode != 0, result
    printed = result.stdout + result.stderr
    assert "dudo:***@" in printed or "not a valid URL" in printed, printed
    assert password not in printed, printed
