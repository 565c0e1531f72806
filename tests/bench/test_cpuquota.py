"""bench/cpuquota.py: the CPU quotas bench/cluster.py runs its nodes under (issue 23).

The quota tests use the machine's real cgroups (cgroup v2 or v1, whichever it has) and
need root, as CI has; where no quota can be set they are skipped with the module's own
reason. The error tests point the module at folders that are not a usable cgroup root.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import cpuquota  # noqa: E402  (bench/cpuquota.py)
from cpuquota import CpuQuotas, QuotaUnavailable  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


def usable() -> CpuQuotas:
    try:
        return CpuQuotas().open()
    except QuotaUnavailable as error:
        pytest.skip(f"no CPU quota on this machine: {error}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def ours(quotas: CpuQuotas) -> list[Path]:
    return sorted(quotas.parent.glob(f"{cpuquota.PREFIX}{quotas.owner}-*"))


def busy() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def test_a_busy_process_moved_into_a_cgroup_of_a_fifth_of_a_core_gets_about_that() -> None:
    quotas = usable()
    spinner = busy()
    try:
        group = quotas.confine(spinner.pid, "spinner", 0.2)
        assert group.path.name == f"dudo-bench-{os.getpid()}-spinner"
        assert group.quota() == pytest.approx(0.2)
        assert group.pids() == [spinner.pid]
        used, throttling, began = cpu_seconds(spinner.pid), group.throttling(), time.monotonic()
        time.sleep(1.5)
        cores = (cpu_seconds(spinner.pid) - used) / (time.monotonic() - began)
        stopped = group.throttling().since(throttling)
    finally:
        spinner.kill()
        spinner.wait()
        quotas.close()
    # A busy loop takes a whole core when it can; in the cgroup it gets at most its 0.2
    # (the bound is generous: ticks are 10 ms, and the periods straddle the window's ends),
    # and the kernel says it stopped it for using up its quota.
    assert cores < 0.5
    assert stopped.throttled > 0 and stopped.throttled_seconds > 0
    assert ours(quotas) == []


@pytest.mark.parametrize("interruption", [RuntimeError, KeyboardInterrupt])
def test_no_cgroup_is_left_behind_after_an_error_or_ctrl_c(
    interruption: type[BaseException],
) -> None:
    spinner = busy()
    made: list[Path] = []
    try:
        with pytest.raises(interruption), CpuQuotas() as quotas:
            made = [
                quotas.confine(spinner.pid, "node-1", 0.2).path,
                quotas.make("node-2", 0.3).path,
            ]
            assert all(path.is_dir() for path in made)
            raise interruption("stopped")
    except QuotaUnavailable as error:
        pytest.skip(f"no CPU quota on this machine: {error}")
    finally:
        spinner.kill()
        spinner.wait()
    assert made and not any(path.exists() for path in made)
    assert ours(quotas) == []


def test_a_cgroup_without_a_quota_can_be_weighed_above_other_work() -> None:
    quotas = usable()
    try:
        group = quotas.make("driver", None, 8.0)
        assert group.quota() == float("inf")
        knob = "cpu.weight" if group.kind == "v2" else "cpu.shares"
        assert (group.path / knob).read_text().strip() == ("800" if group.kind == "v2" else "8192")
    finally:
        quotas.close()
    assert ours(quotas) == []


def test_a_process_still_in_a_cgroup_goes_back_where_it_was_when_it_is_removed() -> None:
    quotas = usable()
    spinner = busy()
    try:
        home = quotas.cgroup_of(spinner.pid)
        assert home is not None and home.is_dir()
        group = quotas.confine(spinner.pid, "back", 0.5)
        assert quotas.cgroup_of(spinner.pid) == group.path
        quotas.close()
        assert quotas.cgroup_of(spinner.pid) == home and not group.path.exists()
    finally:
        spinner.kill()
        spinner.wait()
        quotas.close()


def test_cgroups_of_a_run_that_was_killed_are_swept() -> None:
    quotas = usable()
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = quotas.parent / f"{cpuquota.PREFIX}{gone.pid}-node-9"
    stale.mkdir()
    try:
        assert stale in quotas.sweep()
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()


def test_an_empty_folder_is_not_a_cgroup_root(tmp_path: Path) -> None:
    with pytest.raises(QuotaUnavailable, match="no cgroup filesystem with a cpu controller"):
        CpuQuotas(root=tmp_path).open()


def test_cgroup_v2_without_the_cpu_controller_is_named(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("memory pids\n")
    with pytest.raises(QuotaUnavailable, match=r"no cpu controller \(cgroup.controllers: memory"):
        CpuQuotas(root=tmp_path).open()


def test_a_plain_folder_laid_out_like_cgroup_v1_is_refused_and_left_clean(
    tmp_path: Path,
) -> None:
    cpu = tmp_path / "cpu"
    cpu.mkdir()
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    with pytest.raises(QuotaUnavailable, match="is not a cgroup filesystem"):
        CpuQuotas(root=tmp_path).open()
    assert sorted(p.name for p in cpu.iterdir()) == ["cpu.cfs_quota_us"]


def test_a_read_only_cgroup_filesystem_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What mkdir gives in a container whose /sys/fs/cgroup is mounted read-only.
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")

    def read_only(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(QuotaUnavailable, match="mounted read-only"):
        CpuQuotas(root=tmp_path).open()


def test_without_root_the_error_says_so() -> None:
    usable().close()  # the machine has quotas for root; as another user:
    script = (
        "import os, sys; sys.path.insert(0, sys.argv[1])\n"
        "from cpuquota import CpuQuotas, QuotaUnavailable\n"  # (before: nobody may not read it)
        "os.setgid(65534); os.setuid(65534)\n"
        "try:\n    CpuQuotas().open()\nexcept QuotaUnavailable as error:\n    print(error)\n"
    )
    if os.geteuid() != 0:
        pytest.skip("needs root, to become another user")
    said = subprocess.run(
        [sys.executable, "-c", script, str(BENCH)], capture_output=True, text=True, timeout=60
    )
    assert said.stdout.startswith("cannot "), said.stdout + said.stderr
    assert "running as uid 65534" in said.stdout and "needs root" in said.stdout


def test_bench_cluster_says_why_in_one_line_and_exits_non_zero(tmp_path: Path) -> None:
    said = subprocess.run(
        [sys.executable, str(BENCH / "cluster.py"), "--only", "quota"],
        env={**os.environ, "DUDO_BENCH_CGROUPS": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert said.returncode == 2
    assert said.stdout == ""
    assert said.stderr.count("\n") == 1, said.stderr
    assert said.stderr.startswith("bench/cluster.py --only quota: no cgroup filesystem")
