"""deploy/Dockerfile and deploy/compose.yaml on a real container runtime (docs/deploy.md,
"One small server"): the image is built, run as the README says (``-p 8000:8000 -v
dudo:/data``), passes its health check, serves a room, runs as the user dudo, and after the
container is replaced the room is still there: the database lived on the volume.

The runtime is Debian's podman with runc, which .ci/run installs. No container registry is
reachable from CI, so the base image is a bare Debian made with debootstrap (no Python: the
Dockerfile installs Debian's python3 then; tests/server/host/debian_base.py makes it and
caches it in /var/cache/dudo-test between runs), which trusts the certificate authorities
of this machine, as this machine's pip does, so that the build can reach PyPI. Everywhere
else the Dockerfile's default base, python:3.11-slim (Python there already), is pulled as
usual.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from debian_base import CACHE, TARBALL_NAME, debian_tarball
from websockets.sync.client import connect as ws_connect
from websockets.typing import Subprotocol

from serverkit import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
COMPOSE = ROOT / "deploy" / "compose.yaml"
BASE = "localhost/dudo-test-base:bookworm-minbase"
TRUSTED = "localhost/dudo-test-base:bookworm-trusted"
IMAGE = "localhost/dudo-test:latest"
HOST_CAS = Path("/etc/ssl/certs/ca-certificates.crt")
# podman's defaults ask for more open files than this machine's hard limit allows, and
# there is no systemd to manage cgroups or take events.
CONTAINERS_CONF = """\
[containers]
default_ulimits = []

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""


def need(tool: str) -> str:
    """The tool's path; missing it (or not being root) fails under CI and skips elsewhere."""
    path = shutil.which(tool) or next(
        (f"{d}/{tool}" for d in ("/usr/sbin", "/sbin") if os.access(f"{d}/{tool}", os.X_OK)), None
    )
    if path is None or os.geteuid() != 0:
        why = f"no {tool} on this machine" if path is None else "the test needs root"
        if os.environ.get("CI"):
            pytest.fail(f"{why}: .ci/run installs podman, runc and debootstrap as root")
        pytest.skip(why)
    return path


class Podman:
    """podman with this test's containers.conf."""

    def __init__(self, binary: str, conf: Path) -> None:
        self.binary = binary
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf)}

    def run(
        self, *args: str, check: bool = True, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.binary, *args], env=self.env, capture_output=True, timeout=timeout, text=True
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"podman {' '.join(args)} failed ({done.returncode}):\n"
                f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            )
        return done

    def exists(self, image: str) -> bool:
        return self.run("image", "exists", image, check=False).returncode == 0


def debian_base(podman: Podman) -> None:
    """``BASE``: Debian bookworm's minimal base from debootstrap, imported once; the root
    file system's tarball is kept in CACHE so that later runs skip debootstrap (and
    ``.ci/run`` makes it in the background while the tests are being installed)."""
    if podman.exists(BASE):
        return
    tarball = CACHE / TARBALL_NAME
    if not tarball.exists():
        tarball = debian_tarball(need("debootstrap"), CACHE)
    podman.run("import", str(tarball), BASE, timeout=600)


def trusted_base(podman: Podman, directory: Path) -> str:
    """BASE with this machine's certificate authorities, for pip too (Debian's pip uses its
    own bundle unless told): builds here go through this machine's way to PyPI. They are
    a local authority as well, so that installing ca-certificates keeps them."""
    if not HOST_CAS.exists():
        return BASE
    context = directory / "trust"
    context.mkdir()
    shutil.copy(HOST_CAS, context / "cas.crt")
    (context / "Containerfile").write_text(
        f"FROM {BASE}\n"
        "COPY cas.crt /etc/ssl/certs/ca-certificates.crt\n"
        "COPY cas.crt /usr/local/share/ca-certificates/this-machine.crt\n"
        "RUN printf '[global]\\ncert = /etc/ssl/certs/ca-certificates.crt\\n' > /etc/pip.conf\n",
        encoding="utf-8",
    )
    podman.run("build", "-t", TRUSTED, str(context), timeout=300)
    return TRUSTED


@contextlib.contextmanager
def container(podman: Podman, volume: str, port: int) -> Iterator[str]:
    """The image run as the README says, its port published on the loopback only."""
    name = f"dudo-test-{uuid.uuid4().hex[:8]}"
    podman.run(
        "run", "-d", "--name", name, "-p", f"127.0.0.1:{port}:8000", "-v", f"{volume}:/data", IMAGE
    )
    try:
        yield name
    finally:
        podman.run("rm", "-f", "-t", "5", name, check=False)


def wait_healthy(podman: Podman, name: str, base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        state = podman.run("inspect", name, "--format", "{{.State.Status}}", check=False)
        if time.monotonic() > deadline or state.stdout.strip() not in ("running", "created"):
            logs = podman.run("logs", name, check=False)
            raise AssertionError(
                f"the container never answered /healthz ({state.stdout}):\n"
                f"{logs.stdout[-3000:]}{logs.stderr[-3000:]}"
            )
        time.sleep(0.3)
    # The image's own HEALTHCHECK, as the runtime runs it (no systemd here to time it).
    checked = podman.run("healthcheck", "run", name, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def first_state(base: str, code: str, token: str) -> dict[str, object]:
    url = base.replace("http", "ws") + f"/ws/{code}"
    with ws_connect(
        url, subprotocols=[Subprotocol("dudo.v1"), Subprotocol(f"token.{token}")]
    ) as socket_:
        message: dict[str, object] = json.loads(socket_.recv(timeout=10))
    return message


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> tuple[Podman, str]:
    """podman set up for this machine, and the base image to build on."""
    directory = tmp_path_factory.mktemp("podman")
    podman = Podman(need("podman"), directory / "containers.conf")
    need("runc")
    (directory / "containers.conf").write_text(CONTAINERS_CONF, encoding="utf-8")
    debian_base(podman)
    return podman, trusted_base(podman, directory)


def test_the_image_keeps_its_database_on_the_volume_and_runs_as_dudo(
    runtime: tuple[Podman, str],
) -> None:
    podman, base_image = runtime
    # HEALTHCHECK is part of the Docker image format (OCI images have no such field).
    built = podman.run(
        "build",
        "--format",
        "docker",
        "--build-arg",
        f"BASE={base_image}",
        "--label",
        "dudo-test=1",
        "-f",
        str(DOCKERFILE),
        "-t",
        IMAGE,
        str(ROOT),
        timeout=900,
    )
    # The earlier builds of this test that the new one replaced (never anyone else's).
    podman.run("image", "prune", "-f", "--filter", "label=dudo-test=1", check=False)
    assert "Successfully tagged" in built.stdout + built.stderr
    image = json.loads(podman.run("image", "inspect", IMAGE).stdout)[0]
    config = image["Config"]
    health = image.get("Healthcheck") or config.get("Healthcheck")  # podman's place, docker's
    assert config["User"] == "dudo"
    assert "/data" in config["Volumes"]
    assert "DUDO_DATABASE=sqlite:////data/dudo.db" in config["Env"]
    assert health and "healthz" in " ".join(health["Test"]), image
    assert config["ExposedPorts"] == {"8000/tcp": {}}

    # deploy/compose.yaml runs the same image the same way.
    service = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["dudo"]
    assert (
        service["build"]["context"] == ".."
        and service["build"]["dockerfile"] == "deploy/Dockerfile"
    )
    assert service["volumes"] == ["dudo:/data"]
    assert service["ports"] == ["${DUDO_PUBLISH:-8000}:8000"]  # 8000:8000 unless told
    assert service["environment"]["DUDO_DATABASE"] == "sqlite:////data/dudo.db"
    assert "healthcheck" not in service  # the image's own

    volume = f"dudo-test-{uuid.uuid4().hex[:8]}"
    podman.run("volume", "create", volume)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    try:
        with container(podman, volume, port) as name:
            wait_healthy(podman, name, base)
            made = httpx.post(f"{base}/api/rooms", json={"name": "Ana", "seats": 3}, timeout=10)
            assert made.status_code == 201, made.text
            code, token = made.json()["code"], made.json()["token"]
            assert first_state(base, code, token)["type"] == "state"
            # Not root: the server's process, and it cannot change its own code.
            status = podman.run("exec", name, "cat", "/proc/1/status").stdout
            uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
            assert uids == ["10001"] * 4, status
            assert (
                podman.run("exec", name, "touch", "/opt/dudo/venv/x", check=False).returncode != 0
            )
            # The base had no Python: the Dockerfile installed Debian's, under the venv.
            venv = podman.run("exec", name, "cat", "/opt/dudo/venv/pyvenv.cfg").stdout
            assert "home = /usr/bin" in venv, venv
            files = podman.run("exec", name, "ls", "-ln", "/data").stdout
            assert " 10001 10001 " in files and "dudo.db" in files, files
            # docker stop / podman stop: SIGTERM, and a clean exit.
            podman.run("stop", "-t", "20", name)
            assert (
                podman.run("inspect", name, "--format", "{{.State.ExitCode}}").stdout.strip() == "0"
            )
        # A new container (an upgrade is the same) on the same volume: the room is there,
        # and Ana's seat token still takes her seat.
        with container(podman, volume, port) as name:
            wait_healthy(podman, name, base)
            info = httpx.get(f"{base}/api/rooms/{code}", timeout=10)
            assert info.status_code == 200, info.text
            assert "Ana" in info.text
            state = first_state(base, code, token)
            assert state["type"] == "state" and state["you"]["seat"] == 0, state  # type: ignore[index]
    finally:
        podman.run("volume", "rm", "-f", volume, check=False)


def test_compose_runs_the_box_and_keeps_its_rooms_across_down_and_up(
    runtime: tuple[Podman, str], tmp_path: Path
) -> None:
    """deploy/compose.yaml with podman-compose: up, a room, down, up, the room is there.
    The copy run here differs in what this machine needs: the build context's absolute
    path (the copy is not in deploy/), the test's own image name, and no ulimits (this
    machine's hard limits refuse any)."""
    podman, base_image = runtime
    compose_tool = need("podman-compose")
    setup = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    service = setup["services"]["dudo"]
    assert service["build"]["args"] == {"BASE": "${DUDO_BASE:-python:3.11-slim}"}
    assert service["ports"] == ["${DUDO_PUBLISH:-8000}:8000"]
    assert service["ulimits"] == {"nofile": 65536}
    service["build"]["context"] = str(ROOT)
    service["image"] = "localhost/dudo-test-compose:latest"
    del service["ulimits"]
    copy = tmp_path / "compose.yaml"
    copy.write_text(yaml.safe_dump(setup), encoding="utf-8")
    project = f"dudotest{uuid.uuid4().hex[:8]}"
    port = free_port()
    env = {
        **podman.env,
        "DUDO_BASE": base_image,
        "DUDO_PUBLISH": f"127.0.0.1:{port}",
        "BUILDAH_FORMAT": "docker",
    }

    def compose(*args: str) -> None:
        done = subprocess.run(
            [compose_tool, "-p", project, "-f", str(copy), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0 and "exit code: 1" not in done.stdout, (
            done.stdout[-3000:] + done.stderr[-3000:]
        )

    base = f"http://127.0.0.1:{port}"
    name = f"{project}_dudo_1"
    try:
        compose("up", "-d", "--build")
        wait_healthy(podman, name, base)
        made = httpx.post(f"{base}/api/rooms", json={"name": "Ana"}, timeout=10)
        assert made.status_code == 201, made.text
        code, token = made.json()["code"], made.json()["token"]
        compose("down")
        assert podman.run("container", "exists", name, check=False).returncode != 0
        compose("up", "-d")
        wait_healthy(podman, name, base)
        assert httpx.get(f"{base}/api/rooms/{code}", timeout=10).status_code == 200
        assert first_state(base, code, token)["type"] == "state"
    finally:
        subprocess.run(
            [compose_tool, "-p", project, "-f", str(copy), "down"],
            env=env,
            capture_output=True,
            timeout=120,
        )
        podman.run("volume", "rm", "-f", f"{project}_dudo", check=False)
        podman.run("network", "rm", "-f", f"{project}_default", check=False)
