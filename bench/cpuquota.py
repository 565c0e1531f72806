"""CPU quotas for benchmark processes (issue 23): one cgroup per node, so that N nodes on
one machine are measured as N machines of a fixed size would be.

Why a quota and not just more cores: on a 2-core machine the load driver takes most of a
core, so nodes that may use all they want fight the driver (and each other) for the same
cores, and "2 nodes against 1" measures the machine, not the cluster. Capped at a fraction
of a core each, with the driver, Redis and PostgreSQL outside the caps, every node gets
the same CPU whether it runs alone or beside three others, as long as the machine has that
much to spare (the caller measures each node's CPU to show it did).

Both cgroup kinds are handled, whichever the machine has:

    v2 (unified)  a child of the cgroup2 root with ``+cpu`` in the root's
                  ``cgroup.subtree_control``; the quota is ``cpu.max`` ("QUOTA PERIOD")
    v1            a child of the ``cpu`` controller's hierarchy; the quota is
                  ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``

A cgroup is named ``dudo-bench-<pid of the bench>-<node>``; ``CpuQuotas`` removes the ones
it made when it is closed (also on an error or Ctrl-C), and on opening those that a killed
earlier run left behind. Anything that keeps a quota from being set raises
``QuotaUnavailable`` with one line saying what is missing (root, the cpu controller, a
writable cgroup filesystem).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

CGROUP_ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000  # the kernel's default CFS period: 0.1 s
PREFIX = "dudo-bench-"


class QuotaUnavailable(RuntimeError):
    """Why no CPU quota can be set on this machine, in one line."""


@dataclass(frozen=True)
class Throttling:
    """A cgroup's CFS counters: periods in which it ran, in how many of them it used its
    whole quota and was stopped, and the time it spent stopped."""

    periods: int
    throttled: int
    throttled_seconds: float

    def since(self, before: Throttling) -> Throttling:
        return Throttling(
            self.periods - before.periods,
            self.throttled - before.throttled,
            self.throttled_seconds - before.throttled_seconds,
        )


@dataclass
class Cgroup:
    """One cgroup this module made: its folder and the kind of hierarchy it is in."""

    path: Path
    kind: str  # "v1" or "v2"
    home: Path | None = None  # where a process still in it goes back (else the root)

    def set_quota(self, cores: float) -> None:
        quota = round(cores * PERIOD_US)
        if self.kind == "v2":
            _write(self.path / "cpu.max", f"{quota} {PERIOD_US}")
        else:
            _write(self.path / "cpu.cfs_period_us", str(PERIOD_US))
            _write(self.path / "cpu.cfs_quota_us", str(quota))

    def set_weight(self, factor: float) -> None:
        """Weigh the cgroup ``factor`` times a default process against the others when
        the machine is short of CPU (v2 cpu.weight, default 100; v1 cpu.shares, 1024)."""
        if self.kind == "v2":
            _write(self.path / "cpu.weight", str(max(1, min(10_000, round(100 * factor)))))
        else:
            _write(self.path / "cpu.shares", str(max(2, min(262_144, round(1024 * factor)))))

    def quota(self) -> float:
        """The quota in cores, read back from the kernel (inf when unlimited)."""
        if self.kind == "v2":
            quota, period = (self.path / "cpu.max").read_text().split()
        else:
            quota = (self.path / "cpu.cfs_quota_us").read_text().strip()
            period = (self.path / "cpu.cfs_period_us").read_text().strip()
        if quota in ("max", "-1"):
            return float("inf")
        return int(quota) / int(period)

    def move(self, pid: int) -> None:
        """Put a process (all its threads) in this cgroup; its children start in it."""
        _write(self.path / "cgroup.procs", str(pid))

    def pids(self) -> list[int]:
        with contextlib.suppress(OSError):
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        return []

    def throttling(self) -> Throttling:
        stat: dict[str, int] = {}
        for line in (self.path / "cpu.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                stat[name] = int(value)
        stopped = (
            stat.get("throttled_usec", 0) / 1e6
            if self.kind == "v2"
            else stat.get("throttled_time", 0) / 1e9
        )
        return Throttling(stat.get("nr_periods", 0), stat.get("nr_throttled", 0), stopped)

    def remove(self, timeout: float = 5.0) -> None:
        """Remove the cgroup. A process still in it is moved to the hierarchy's root first
        (the kernel refuses to remove a cgroup with processes); one just killed may take a
        moment to leave."""
        deadline = time.monotonic() + timeout
        home = self.home if self.home and self.home.is_dir() else self.path.parent
        while True:
            for pid in self.pids():
                with contextlib.suppress(OSError):
                    _write(home / "cgroup.procs", str(pid))
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as error:
                if error.errno != errno.EBUSY or time.monotonic() > deadline:
                    raise
            time.sleep(0.05)


def _write(path: Path, text: str) -> None:
    # One write call: cgroup files take a value per write, and Path.write_text would
    # open with O_TRUNC|O_CREAT, which is harmless on cgroupfs but would quietly make a
    # plain file elsewhere.
    descriptor = os.open(path, os.O_WRONLY)
    try:
        os.write(descriptor, text.encode())
    finally:
        os.close(descriptor)


def _explain(error: OSError, doing: str, where: Path) -> QuotaUnavailable:
    """One line naming what is missing, from the error the kernel gave."""
    if error.errno in (errno.EACCES, errno.EPERM):
        why = (
            f"permission denied (running as uid {os.geteuid()}; a CPU quota needs root or a "
            "cgroup delegated to this user)"
            if os.geteuid() != 0
            else "permission denied, though running as root (a container without "
            "CAP_SYS_ADMIN over its cgroups? run it --privileged or with a delegated cgroup)"
        )
    elif error.errno == errno.EROFS:
        why = (
            "the cgroup filesystem is mounted read-only (a container's usual default: "
            "run it with a writable cgroupfs, e.g. --privileged or --cgroupns=private "
            "with a delegated cgroup)"
        )
    elif error.errno == errno.EBUSY:
        why = (
            "busy: in cgroup v2 processes may not live in a cgroup whose children have "
            "controllers (run the bench from a machine or container whose root cgroup "
            "allows it)"
        )
    elif error.errno == errno.ENOENT:
        why = "no such file (the kernel has no CFS bandwidth control: CONFIG_CFS_BANDWIDTH)"
    else:
        why = error.strerror or str(error)
    return QuotaUnavailable(f"cannot {doing} {where}: {why}")


def find_hierarchy(root: Path = CGROUP_ROOT) -> tuple[str, Path]:
    """Which cgroup kind this machine has for the cpu controller, and the folder in which
    to make cgroups: ("v2", the cgroup2 root) or ("v1", the cpu hierarchy). Raises
    QuotaUnavailable naming what is missing."""
    if (root / "cgroup.controllers").exists():  # pure v2: the unified root is `root`
        return "v2", _usable_v2(root)
    cpu = root / "cpu"
    if (cpu / "cpu.cfs_quota_us").exists():  # v1 (or hybrid, cpu on v1), maybe cpu,cpuacct
        return "v1", cpu.resolve()
    if (root / "unified" / "cgroup.controllers").exists():  # hybrid without a v1 cpu
        return "v2", _usable_v2(root / "unified")
    if cpu.is_dir():
        raise QuotaUnavailable(
            f"{cpu} has no cpu.cfs_quota_us: the kernel has no CFS bandwidth control "
            "(CONFIG_CFS_BANDWIDTH), so no CPU quota can be set"
        )
    raise QuotaUnavailable(
        f"no cgroup filesystem with a cpu controller under {root}: neither "
        f"{root}/cgroup.controllers (cgroup v2) nor {root}/cpu/cpu.cfs_quota_us (cgroup v1)"
    )


def _usable_v2(root: Path) -> Path:
    controllers = (root / "cgroup.controllers").read_text().split()
    if "cpu" not in controllers:
        raise QuotaUnavailable(
            f"cgroup v2 at {root} has no cpu controller (cgroup.controllers: "
            f"{' '.join(controllers) or 'empty'}; it may be bound to a v1 hierarchy, or "
            "not delegated to this container)"
        )
    return root


@dataclass
class CpuQuotas:
    """The cgroups of one bench run (one per node), removed when it is closed.

    ``with CpuQuotas() as quotas: group = quotas.confine(pid, "node-8001", 0.2)``
    """

    root: Path = CGROUP_ROOT
    owner: int = field(default_factory=os.getpid)
    kind: str = ""
    parent: Path = Path()
    made: list[Cgroup] = field(default_factory=list)

    def open(self) -> CpuQuotas:
        """Find the hierarchy, remove cgroups left by runs that are gone, and check that a
        cgroup can be made, given a quota and a process (a short ``sleep``), and removed:
        every failure shows here, before any node starts."""
        self.kind, self.parent = find_hierarchy(self.root)
        self.sweep()
        sleeper = subprocess.Popen(["sleep", "30"])
        try:
            probe = self.make("probe", 0.5)
            try:
                probe.move(sleeper.pid)
            except OSError as error:
                raise _explain(error, "move a process into", probe.path) from None
        finally:
            sleeper.kill()
            sleeper.wait()
        self.release(probe)
        return self

    def __enter__(self) -> CpuQuotas:
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def make(self, name: str, cores: float | None, weight: float = 1.0) -> Cgroup:
        """A new cgroup ``dudo-bench-<owner>-<name>`` with a quota of ``cores`` (None: no
        quota) and ``weight`` times the default CPU weight."""
        if cores is not None and not 0.01 <= cores <= (os.cpu_count() or 1):
            raise ValueError(f"a quota of {cores} cores: it must be 0.01 to the CPU count")
        if self.kind == "v2" and "cpu" not in _enabled(self.parent):
            try:
                _write(self.parent / "cgroup.subtree_control", "+cpu")
            except OSError as error:
                raise _explain(error, "enable the cpu controller in", self.parent) from None
        path = self.parent / f"{PREFIX}{self.owner}-{name}"
        try:
            path.mkdir()
        except OSError as error:
            raise _explain(error, "create a cgroup in", self.parent) from None
        group = Cgroup(path, self.kind)
        self.made.append(group)
        if not (path / "cgroup.procs").exists():  # a plain folder, not a cgroup filesystem
            self.release(group)
            raise QuotaUnavailable(
                f"{self.parent} is not a cgroup filesystem (a folder made there has no "
                "cgroup.procs)"
            )
        try:
            if cores is not None:
                group.set_quota(cores)
            if weight != 1.0:
                group.set_weight(weight)
        except OSError as error:
            self.release(group)
            raise _explain(error, "set a CPU quota or weight in", path) from None
        return group

    def confine(self, pid: int, name: str, cores: float | None, weight: float = 1.0) -> Cgroup:
        """Put process ``pid`` in a new cgroup of its own limited to ``cores``."""
        group = self.make(name, cores, weight)
        group.home = self.cgroup_of(pid)
        try:
            group.move(pid)
        except OSError as error:
            self.release(group)
            raise _explain(error, "move a process into", group.path) from None
        return group

    def cgroup_of(self, pid: int) -> Path | None:
        """The folder of the cgroup process ``pid`` is in, in this hierarchy."""
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                if (self.kind == "v2" and controllers == "") or (
                    self.kind == "v1" and "cpu" in controllers.split(",")
                ):
                    return self.parent / path.lstrip("/")
        return None

    def release(self, group: Cgroup) -> None:
        group.remove()
        if group in self.made:
            self.made.remove(group)

    def close(self) -> None:
        """Remove every cgroup made (the first failure is raised after trying them all)."""
        failed: OSError | None = None
        for group in list(self.made):
            try:
                self.release(group)
            except OSError as error:
                failed = failed or error
        if failed:
            raise failed

    def sweep(self) -> list[Path]:
        """Remove cgroups of earlier runs whose bench process is gone (killed with -9)."""
        removed = []
        for path in self.parent.glob(f"{PREFIX}*"):
            found = re.fullmatch(rf"{PREFIX}(\d+)-.+", path.name)
            if found and path.is_dir() and not Path(f"/proc/{found[1]}").exists():
                with contextlib.suppress(OSError):
                    Cgroup(path, self.kind).remove(timeout=1.0)
                    removed.append(path)
        return removed


def _enabled(parent: Path) -> list[str]:
    return (parent / "cgroup.subtree_control").read_text().split()
