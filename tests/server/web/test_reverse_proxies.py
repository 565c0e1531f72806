"""deploy/nginx.conf and deploy/Caddyfile in front of ``dudo serve``, with Debian's nginx
and caddy and a real browser (docs/deploy.md, "One small server"): the page, a room, the
table's socket, bids, calls and reveals, a whole game to its winner, through each proxy.

The proxies run unprivileged, on random loopback ports, with configurations made from the
shipped ones by changing only ports, addresses and paths: nginx keeps its TLS (a
certificate made here for dudo.example), Caddy gets a plain http:// site address instead of
automatic TLS. Chromium resolves dudo.example to the loopback, so the browser's Origin is
the public host, as on the internet.

Also the common nginx snippet that forgets ``proxy_set_header Host``: with the shipped
file's X-Forwarded-Host (believed from --forwarded-allow-ips) a game plays through it; with
neither, the socket is refused and the server's log says what to fix.

nginx and caddy are Debian's packages, which .ci/run installs: missing them fails under CI
and skips elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect, sync_playwright
from test_web import ARGS, CHROMIUM, TIMINGS, create_room, phase, play_turn
from websockets.sync.client import connect as ws_connect
from websockets.typing import Origin

from serverkit import free_port, server_process, sqlite_url

pytestmark = pytest.mark.slow  # tens of seconds: run first (tests/conftest.py)

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
PUBLIC = "dudo.example"


def need(tool: str) -> str:
    path = shutil.which(tool) or next(
        (f"{d}/{tool}" for d in ("/usr/sbin", "/sbin") if os.access(f"{d}/{tool}", os.X_OK)), None
    )
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {tool} (.ci/run)")
        pytest.skip(f"no {tool} on this machine")
    return path


@contextlib.contextmanager
def workspace() -> Iterator[Path]:
    """A directory the unprivileged proxy may read and write (pytest's are root's only)."""
    directory = Path(tempfile.mkdtemp(prefix="dudo-proxy-"))
    try:
        directory.chmod(0o755)
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(directory, nobody.pw_uid, nobody.pw_gid)
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def unprivileged(command: list[str]) -> list[str]:
    """As the user nobody when the test runs as root: a proxy needs no privileges here."""
    return ["runuser", "-u", "nobody", "--", *command] if os.geteuid() == 0 else command


def give_to_nobody(*paths: Path) -> None:
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        for path in paths:
            os.chown(path, nobody.pw_uid, nobody.pw_gid)


@contextlib.contextmanager
def running(
    command: list[str], port: int, log: Path, env: dict[str, str] | None = None
) -> Iterator[None]:
    with log.open("wb") as out:
        process = subprocess.Popen(
            unprivileged(command),
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    f"{command[0]} did not start:\n" + log.read_text(errors="replace")[-3000:]
                )
            time.sleep(0.1)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def nginx_site(
    upstream: int,
    https_port: int,
    http_port: int,
    directory: Path,
    forget_host: bool = False,
    forget_forwarded_host: bool = False,
) -> str:
    """deploy/nginx.conf with this test's ports and certificate. ``forget_host`` makes it
    the common snippet: no proxy_set_header Host, and proxy_pass straight to the address,
    so that dudo sees ``Host: 127.0.0.1:PORT``; ``forget_forwarded_host`` drops its
    X-Forwarded-Host line too."""
    site = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    changes = [
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};"),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen [::]:80;\n", ""),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        ("listen [::]:443 ssl http2;\n", ""),
        ("/etc/letsencrypt/live/dudo.example/fullchain.pem", str(directory / "cert.pem")),
        ("/etc/letsencrypt/live/dudo.example/privkey.pem", str(directory / "key.pem")),
        ("root /var/www/html;", f"root {directory};"),
    ]
    if forget_host:
        changes.append(("    proxy_set_header Host $http_host;\n", ""))
        changes.append(("proxy_pass http://dudo;", f"proxy_pass http://127.0.0.1:{upstream};"))
    if forget_forwarded_host:
        changes.append(("    proxy_set_header X-Forwarded-Host $http_host;\n", ""))
    for old, new in changes:
        assert old in site, f"deploy/nginx.conf changed shape: no {old!r}"
        site = site.replace(old, new)
    return site


@contextlib.contextmanager
def nginx(upstream: int, **forgetting: bool) -> Iterator[str]:
    """Debian's nginx with the shipped site; yields the public base URL (https)."""
    binary = need("nginx")
    with workspace() as directory:
        made = subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                f"/CN={PUBLIC}",
                "-addext",
                f"subjectAltName=DNS:{PUBLIC}",
                "-keyout",
                str(directory / "key.pem"),
                "-out",
                str(directory / "cert.pem"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert made.returncode == 0, made.stderr
        https_port, http_port = free_port(), free_port()
        (directory / "site.conf").write_text(
            nginx_site(upstream, https_port, http_port, directory, **forgetting), encoding="utf-8"
        )
        # The main file of Debian's nginx.conf, cut to what a process of the test's needs;
        # the site is included as /etc/nginx/sites-enabled/ would.
        (directory / "nginx.conf").write_text(
            f"""
pid {directory}/nginx.pid;
error_log {directory}/error.log;
worker_processes 1;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    access_log {directory}/access.log;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    include {directory}/site.conf;
}}
""",
            encoding="utf-8",
        )
        for name in ("key.pem", "cert.pem", "site.conf", "nginx.conf"):
            give_to_nobody(directory / name)
        command = [
            binary,
            "-p",
            str(directory),
            "-c",
            str(directory / "nginx.conf"),
            "-e",
            str(directory / "error.log"),
            "-g",
            "daemon off;",
        ]
        checked = subprocess.run(
            unprivileged([*command, "-t"]), capture_output=True, text=True, timeout=30
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        with running(command, https_port, directory / "nginx.out"):
            # Plain http only sends browsers to https.
            moved = httpx.get(f"http://127.0.0.1:{http_port}/r/ABCD", headers={"Host": PUBLIC})
            assert moved.status_code == 301
            assert moved.headers["location"] == f"https://{PUBLIC}/r/ABCD"
            yield f"https://{PUBLIC}:{https_port}"


@contextlib.contextmanager
def caddy(upstream: int) -> Iterator[str]:
    """Debian's caddy with the shipped Caddyfile; yields the public base URL (http)."""
    binary = need("caddy")
    with workspace() as directory:
        port = free_port()
        shipped = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
        for old, new in (
            (f"{PUBLIC} {{", f"http://{PUBLIC}:{port} {{\n\tbind 127.0.0.1"),
            ("127.0.0.1:8000", f"127.0.0.1:{upstream}"),
        ):
            assert old in shipped, f"deploy/Caddyfile changed shape: no {old!r}"
            shipped = shipped.replace(old, new)
        # No admin endpoint (its default port would clash), no system-wide storage.
        (directory / "Caddyfile").write_text("{\n\tadmin off\n}\n\n" + shipped, encoding="utf-8")
        give_to_nobody(directory / "Caddyfile")
        command = [
            binary,
            "run",
            "--adapter",
            "caddyfile",
            "--config",
            str(directory / "Caddyfile"),
        ]
        env = {
            "HOME": str(directory),
            "XDG_DATA_HOME": str(directory / "data"),
            "XDG_CONFIG_HOME": str(directory / "config"),
        }
        with running(command, port, directory / "caddy.out", env):
            yield f"http://{PUBLIC}:{port}"


@contextlib.contextmanager
def dudo(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``dudo serve`` as behind a proxy on this machine (as dudo.service runs it)."""
    env = {**TIMINGS, "DUDO_REVEAL_PAUSE": "1.5", "DUDO_FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with server_process(sqlite_url(tmp_path), env=env) as (base, process):
        yield int(base.rsplit(":", 1)[1]), process


@contextlib.contextmanager
def browser_for(public: str) -> Iterator[Browser]:
    """Chromium that finds dudo.example on the loopback."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (CI does, in .ci/run)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*ARGS, f"--host-resolver-rules=MAP {PUBLIC} 127.0.0.1"]
        )
        try:
            yield launched
        finally:
            launched.close()


def play_a_game(public: str) -> None:
    """The whole path a player takes, through the proxy at ``public``."""
    with browser_for(public) as browser:
        context = browser.new_context(
            viewport={"width": 1280, "height": 800}, locale="en-US", ignore_https_errors=True
        )
        page: Page = context.new_page()
        page.set_default_timeout(8000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        code = create_room(page, public, "Ana", 2, {1: "easy"}, {"starting_dice": 3})
        assert page.url == f"{public}/r/{code}"
        page.click("#start")
        page.wait_for_selector(".felt")
        # The table's socket is open, through the proxy, to the public host.
        assert page.evaluate("window.dudo.view.socket.readyState") == 1
        assert page.evaluate("window.dudo.view.socket.url").startswith(
            public.replace("http", "ws") + "/ws/"
        )
        calls: dict[str, int] = {}
        deadline = time.monotonic() + 120
        while phase(page) != "over":
            assert time.monotonic() < deadline, calls
            play_turn(page, calls)
        expect(page.locator(".centre.over")).to_contain_text("wins")
        # Our bids went up the proxy, and reveals came down it (whoever called: the bot
        # may have called every round, our own calls then never came to be made).
        assert calls.get("bids", 0) >= 1 or calls.get("dudo", 0) >= 1, calls
        reveal = page.evaluate("window.dudo.view.state.game.last_reveal")
        assert reveal and reveal["cups"], reveal
        assert not errors, errors
        context.close()


def test_a_whole_game_through_nginx(tmp_path: Path) -> None:
    with dudo(tmp_path) as (upstream, _), nginx(upstream) as public:
        play_a_game(public)


def test_a_whole_game_through_caddy(tmp_path: Path) -> None:
    with dudo(tmp_path) as (upstream, _), caddy(upstream) as public:
        play_a_game(public)


def test_nginx_that_forgets_host_works_by_its_x_forwarded_host(tmp_path: Path) -> None:
    """Upstream sees Host 127.0.0.1:PORT (nginx's proxy_pass host); the page's Origin is
    the public host, which X-Forwarded-Host from the named proxy confirms."""
    with dudo(tmp_path) as (upstream, _), nginx(upstream, forget_host=True) as public:
        play_a_game(public)


def test_nginx_that_forgets_both_is_refused_and_the_log_says_the_fix(tmp_path: Path) -> None:
    with (
        dudo(tmp_path) as (upstream, process),
        nginx(upstream, forget_host=True, forget_forwarded_host=True) as public,
    ):
        port = public.rsplit(":", 1)[1]
        made = httpx.post(
            f"https://127.0.0.1:{port}/api/rooms",
            json={"name": "Ana"},
            headers={"Host": f"{PUBLIC}:{port}"},
            verify=False,
        )
        assert made.status_code == 201, made.text  # pages and the API still work
        # A browser's socket from the page (Origin and Host: the public host), over a
        # connection to the loopback where dudo.example is served here.
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE
        url = f"{public.replace('https', 'wss')}/ws/{made.json()['code']}"
        with ws_connect(
            url,
            origin=Origin(public),
            ssl=insecure,
            server_hostname=PUBLIC,
            sock=socket.create_connection(("127.0.0.1", int(port))),
            open_timeout=30,  # a loaded CI machine took more than the default 10 s once
        ) as socket_:
            assert json.loads(socket_.recv(timeout=5))["code"] == "bad_origin"
        process.terminate()
        output = (process.communicate(timeout=20)[0] or b"").decode(errors="replace")
    lines = [line for line in output.splitlines() if "origin_refused" in line]
    assert len(lines) == 1, output
    assert public in lines[0] and f"(Host: 127.0.0.1:{upstream})" in lines[0], lines
    assert "proxy_set_header Host $host" in lines[0], lines
    assert re.search(r"warn", lines[0], re.IGNORECASE), lines
