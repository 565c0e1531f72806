"""The container tests' base image: Debian bookworm's minimal root file system, made with
debootstrap once and kept as a tarball in a cache folder (tests/server/host/test_container.py
imports it into podman).

Why a module of its own, with nothing but the standard library: debootstrap spends a minute
and a half downloading and unpacking packages, barely using the processor, so ``.ci/run``
starts it in the background (``python3 tests/server/host/debian_base.py``) while pip, the
linters and the type checker keep the processors busy. The test then finds the tarball made,
or waits for the run in progress to finish (a lock on the cache folder), and makes it
itself when nobody did. Either way the tarball is the same cache that later runs reuse.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

CACHE = Path(os.environ.get("DUDO_TEST_CACHE", "/var/cache/dudo-test"))
TARBALL_NAME = "bookworm-minbase.tar"
MIRROR = "http://deb.debian.org/debian"


class BaseFailed(RuntimeError):
    """debootstrap did not make the root file system (its output's end is the message)."""


def debian_tarball(debootstrap: str, cache: Path = CACHE) -> Path:
    """The tarball of a minimal bookworm, made unless it is there; one maker at a time."""
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / TARBALL_NAME
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a background run in progress: wait for it
        if tarball.exists():
            return tarball
        rootfs = cache / "rootfs.partial"
        shutil.rmtree(rootfs, ignore_errors=True)
        made = subprocess.run(
            [debootstrap, "--variant=minbase", "bookworm", str(rootfs), MIRROR],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if made.returncode != 0:
            shutil.rmtree(rootfs, ignore_errors=True)
            raise BaseFailed(made.stdout[-3000:] + made.stderr[-3000:])
        for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for path in (rootfs / leftover).glob("*"):
                if path.is_file():
                    path.unlink()
        partial = tarball.with_suffix(".partial")
        subprocess.run(
            ["tar", "-C", str(rootfs), "-cf", str(partial), "."], check=True, timeout=600
        )
        partial.rename(tarball)
        shutil.rmtree(rootfs, ignore_errors=True)
        return tarball


def main() -> int:
    debootstrap = shutil.which("debootstrap") or "/usr/sbin/debootstrap"
    if not os.access(debootstrap, os.X_OK) or os.geteuid() != 0:
        print("debian_base: needs root and debootstrap; the test will say so", file=sys.stderr)
        return 1
    try:
        print(debian_tarball(debootstrap))
    except (BaseFailed, subprocess.SubprocessError, OSError) as error:
        print(f"debian_base: {error}", file=sys.stderr)  # the test makes it again, and fails
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
