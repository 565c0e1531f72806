"""deploy/systemd/dudo.service, the unit for one box (docs/deploy.md, "One small server"),
run as systemd would run it, without systemd (CI has no systemd as PID 1).

The unit is parsed; its ExecStart runs as the user dudo, with exactly the unit's
Environment and WorkingDirectory, in a mount namespace that does what its hardening asks:
the whole system read-only (ProtectSystem=strict) but the state directory /var/lib/dudo
(StateDirectory=dudo, here a directory of the test's bound there), a /tmp of its own
(PrivateTmp) and no /home or /root (ProtectHome). The server must start, serve a room and
keep its database in the state directory; a write anywhere else would fail. Only the
program's path (this checkout instead of /opt/dudo/.venv) and the port are substituted.
``systemd-analyze verify`` checks the unit where it is installed.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serverkit import free_port

ROOT = Path(__file__).resolve().parents[3]
UNIT = ROOT / "deploy" / "systemd" / "dudo.service"
INSTALLED = "/opt/dudo/.venv/bin/dudo"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """A unit file as {section: {key: [values in order]}} (keys may repeat; a line ending
    in a backslash goes on)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"a setting outside any section: {line!r}"
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def unit_environment(service: dict[str, list[str]]) -> dict[str, str]:
    """Environment= lines (each may hold several KEY=VALUE words, quoted as systemd
    quotes them) as one mapping."""
    environment: dict[str, str] = {}
    for line in service.get("Environment", []):
        for word in shlex.split(line):
            key, _, value = word.partition("=")
            environment[key] = value
    return environment


def need_root_tools() -> None:
    missing = [tool for tool in ("runuser", "unshare", "useradd") if not shutil.which(tool)]
    if missing or os.geteuid() != 0:
        why = f"missing {missing}" if missing else "the test needs root (a user, a namespace)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)


def the_user(name: str, home: str) -> pwd.struct_passwd:
    """The unit's user, made as DynamicUser would (a system user with no shell)."""
    with contextlib.suppress(KeyError):
        return pwd.getpwnam(name)
    subprocess.run(
        [
            "useradd",
            "--system",
            "--no-create-home",
            "--home-dir",
            home,
            "--shell",
            "/usr/sbin/nologin",
            name,
        ],
        check=True,
        timeout=30,
    )
    return pwd.getpwnam(name)


# The interpreter this test runs on, without its virtual environment (the sandbox binds
# the environment's packages at /opt/dudo/lib).
INTERPRETER = Path(os.path.realpath(sys.executable))
HIDDEN = ("/home", "/root")  # ProtectHome=yes


def installed_program(directory: Path) -> Path:
    """What /opt/dudo/.venv/bin holds once installed: a ``dudo`` script, with this
    checkout's code and this environment's packages (bound at /opt/dudo/src and lib)."""
    script = directory / "dudo"
    script.write_text(
        f"#!{INTERPRETER}\n"
        "import site, sys\n"
        "sys.path.insert(0, '/opt/dudo/src')\n"
        "site.addsitedir('/opt/dudo/lib')\n"
        "from dudo.cli import app\n"
        "sys.exit(app())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return directory


def hardened_command(
    state_dir: str,
    kept: Path,
    program: Path,
    user: str,
    working: str,
    environment: dict[str, str],
    command: list[str],
) -> list[str]:
    """``command`` as ``user`` in a mount namespace like the unit's sandbox: ``kept`` seen
    at ``state_dir`` (writable), the program at /opt/dudo, a fresh /tmp, no /home or
    /root, and everything else read-only.

    One exception: a test machine's Python may live in a home directory (pyenv in /root);
    its installation alone is shown again, read-only, where it was."""
    packages = sysconfig.get_paths()["purelib"]
    prefix = str(INTERPRETER.parent.parent)
    parent = str(Path(state_dir).parent)
    steps = [
        # The state directory: a tmpfs over its parent, holding only the bound directory.
        f"mount -t tmpfs -o mode=755 tmpfs {shlex.quote(parent)}",
        f"mkdir {shlex.quote(state_dir)}",
        f"mount --bind {shlex.quote(str(kept))} {shlex.quote(state_dir)}",
        f"mount -o remount,ro {shlex.quote(parent)}",
        # The program, as installed in /opt/dudo (bound before /tmp and /root go away).
        "mount -t tmpfs -o mode=755 tmpfs /opt",
        "mkdir -p /opt/dudo/.venv/bin /opt/dudo/src /opt/dudo/lib /opt/python",
        f"mount --bind {shlex.quote(str(program))} /opt/dudo/.venv/bin",
        f"mount --bind {shlex.quote(str(ROOT / 'src'))} /opt/dudo/src",
        f"mount --bind {shlex.quote(packages)} /opt/dudo/lib",
        f"mount --bind {shlex.quote(prefix)} /opt/python",
        "mount -t tmpfs -o mode=1777 tmpfs /tmp",  # PrivateTmp
    ]
    for hidden in HIDDEN:  # ProtectHome
        if prefix.startswith(hidden + "/"):
            steps += [
                f"mount -t tmpfs -o mode=755 tmpfs {hidden}",
                f"mkdir -p {shlex.quote(prefix)}",
                f"mount --bind /opt/python {shlex.quote(prefix)}",
                f"mount -o remount,ro {hidden}",
            ]
        else:
            steps.append(f"mount -t tmpfs -o ro,mode=000 tmpfs {hidden}")
    steps += [
        "umount /opt/python && rmdir /opt/python",
        "mount -o remount,ro /opt",
        "mount -o remount,bind,ro /",  # ProtectSystem=strict
        'exec runuser -u "$0" -- env -i "$@"',
    ]
    words = [f"{key}={value}" for key, value in environment.items()]
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        " && ".join(steps),
        user,
        "--chdir",
        working,
        *words,
        *command,
    ]


@contextlib.contextmanager
def running(command: list[str], base: str) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                output = process.communicate(timeout=10)[0].decode(errors="replace")
                raise AssertionError(f"the unit's command did not serve:\n{output}")
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_the_unit_keeps_its_hardening_and_a_state_directory() -> None:
    service = parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]
    assert service["StateDirectory"] == ["dudo"]
    assert service["WorkingDirectory"] == ["/var/lib/dudo"]
    assert unit_environment(service)["DUDO_DATABASE"] == "sqlite:////var/lib/dudo/dudo.db"
    assert service["DynamicUser"] == ["yes"] and service["User"] == ["dudo"]
    # Endgames solved on first use go to a cache directory systemd makes writable.
    assert service["CacheDirectory"] == ["dudo"]
    assert unit_environment(service)["DUDO_ENDGAME_CACHE"] == "/var/cache/dudo/endgames"
    for setting, value in (
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("NoNewPrivileges", "yes"),
        ("PrivateDevices", "yes"),
        ("CapabilityBoundingSet", ""),
    ):
        assert service.get(setting) == [value], setting
    assert service["ExecStart"][0].startswith(f"{INSTALLED} serve --host 127.0.0.1 ")
    # The cluster's node unit is still there and still a node.
    node = parse_unit((UNIT.parent / "dudo@.service").read_text(encoding="utf-8"))["Service"]
    assert "--advertise" in node["ExecStart"][0] and node["ProtectSystem"] == ["strict"]


def test_systemd_analyze_verifies_the_units(tmp_path: Path) -> None:
    """Both units, the one-box one and the cluster node's (as an instance, dudo@8001)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze on this machine")
    program = Path(sys.executable).parent / "dudo"
    if not program.exists():
        pytest.skip("no dudo script next to this Python")
    # As installed, but with this checkout's program (verify checks it is executable).
    for unit in (UNIT, UNIT.parent / "dudo@.service"):
        (tmp_path / unit.name).write_text(
            unit.read_text(encoding="utf-8").replace(INSTALLED, str(program)), encoding="utf-8"
        )
    for name in ("dudo.service", "dudo@8001.service"):
        checked = subprocess.run(
            [analyze, "verify", name],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env={**os.environ, "SYSTEMD_UNIT_PATH": f"{tmp_path}:"},
        )
        assert checked.returncode == 0, (name, checked.stdout + checked.stderr)


def test_the_units_command_serves_as_dudo_and_writes_only_its_state(tmp_path: Path) -> None:
    need_root_tools()
    service = parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]
    state_dir = "/var/lib/" + service["StateDirectory"][0]
    user = the_user(service["User"][0], state_dir)
    # What systemd makes for StateDirectory=: the directory, the user's, mode 0700.
    kept = tmp_path / "state"
    kept.mkdir()
    os.chown(kept, user.pw_uid, user.pw_gid)
    kept.chmod(int(service["StateDirectoryMode"][0], 8))
    (tmp_path / "bin").mkdir()
    port = free_port()
    executable = shlex.split(service["ExecStart"][0])
    assert executable[0] == INSTALLED
    arguments = [str(port) if word == "8000" else word for word in executable[1:]]
    assert str(port) in arguments
    # systemd's own PATH; nothing else but what the unit sets.
    environment = {**unit_environment(service), "PATH": "/usr/local/bin:/usr/bin:/bin"}
    program = installed_program(tmp_path / "bin")
    command = hardened_command(
        state_dir,
        kept,
        program,
        user.pw_name,
        service["WorkingDirectory"][0],
        environment,
        [INSTALLED, *arguments],
    )
    # The sandbox holds: the user may write its state directory and its own /tmp only.
    probe = hardened_command(
        state_dir,
        kept,
        program,
        user.pw_name,
        state_dir,
        environment,
        [
            "sh",
            "-c",
            "touch /tmp/x dudo.probe && rm dudo.probe && "
            "for p in /var/tmp/x /opt/dudo/x /etc/x /var/lib/x; do "
            "touch $p 2>/dev/null && echo wrote $p; done; true",
        ],
    )
    probed = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    assert probed.returncode == 0 and "wrote" not in probed.stdout, probed
    base = f"http://127.0.0.1:{port}"
    with running(command, base) as process:
        made = httpx.post(f"{base}/api/rooms", json={"name": "Ana"}, timeout=10)
        assert made.status_code == 201, made.text
        # The server: the process the script's #! line started (runuser forks it).
        server = next(
            pid
            for pid in _descendants(process.pid)
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:2]
            == [str(INTERPRETER).encode(), INSTALLED.encode()]
        )
        status = Path(f"/proc/{server}/status").read_text()
        uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
        assert int(uid) == user.pw_uid != 0
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0].decode(errors="replace")
    # Everything it wrote is in the state directory, and is the user's.
    written = sorted(path.name for path in kept.iterdir())
    assert "dudo.db" in written, (written, output)
    assert all(path.stat().st_uid == user.pw_uid for path in kept.iterdir())
    assert "Read-only file system" not in output, output


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process under it (runuser forks the server on the way)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, StopIteration):
                parents[int(entry.name)] = int(
                    next(
                        line.split()[1]
                        for line in (entry / "status").read_text().splitlines()
                        if line.startswith("PPid:")
                    )
                )
    found = [pid]
    for candidate in sorted(parents):
        chain, seen = candidate, set()
        while chain in parents and chain not in seen and chain != pid:
            seen.add(chain)
            chain = parents[chain]
        if chain == pid and candidate != pid:
            found.append(candidate)
    return found
