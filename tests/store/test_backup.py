"""``dudo backup``: a copy of a live SQLite database, taken mid-game from a real server,
on which ``dudo serve`` resumes every live room where it stood; and bad input refused in
one line (exit 2) with nothing written."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_server_restart import act, close_all, kill, open_tables, seat_three, snapshot

from dudo.client import Client, SeatTicket
from serverkit import server_process, sqlite_url

# Absent people are never replaced by bots while the test runs (the restart leaves every
# seat disconnected for a moment).
SERVER_ENV = {"DUDO_GRACE": "3600", "DUDO_GC": "python"}


def backup(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dudo", "backup", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def lobby_view(summary: dict[str, Any]) -> dict[str, Any]:
    """What a lobby's summary says about who sits where (not its clock-driven parts)."""
    return {
        "status": summary["status"],
        "code": summary["code"],
        "seats": [
            {key: seat.get(key) for key in ("name", "kind", "level")} for seat in summary["seats"]
        ],
    }


def test_a_backup_taken_mid_game_resumes_every_live_room(tmp_path: Path) -> None:
    database = sqlite_url(tmp_path)
    copy = tmp_path / "backups" / "dudo-copy.db"
    copy.parent.mkdir()
    played: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []

    async def before_the_backup(base: str) -> dict[str, Any]:
        tickets, client, tables = await seat_three(base)
        for _ in range(3):  # round 1: three bids and a call, so a seat has lost a die
            await act(tables, played, sent)
        await act(tables, played, sent, call=True)
        for table in tables:
            await table.wait_for(
                lambda state: state["game"]["round"] == 2 and state["game"]["phase"] == "bidding"
            )
        for _ in range(2):  # round 2: two bids standing
            await act(tables, played, sent)
        async with Client(base) as other:  # a second live room, a lobby still filling
            lobby = await other.create_room("Dee", seats=4, bots=[None, "easy"])
            await other.join(lobby.code, "Eve")
            lobby_before = lobby_view(await other.room(lobby.code))
        shots = [snapshot(table) for table in tables]
        # The backup, while the server runs and every seat's socket is open.
        result = backup(str(copy), "--database", database)
        # The server plays on after it: the copy must hold the game as it stood before.
        await act(tables, played, sent)
        later = snapshot(tables[0])
        await close_all(client, tables)
        return {
            "tickets": tickets,
            "shots": shots,
            "result": result,
            "later": later,
            "lobby": lobby,
            "lobby_before": lobby_before,
        }

    with server_process(database, env=SERVER_ENV) as (base, process):
        seen = asyncio.run(before_the_backup(base))
        kill(process)

    result = seen["result"]
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert f"to {copy}" in result.stdout and "2 live rooms" in result.stdout, result.stdout
    shots = seen["shots"]
    assert len({shot["version"] for shot in shots}) == 1
    assert shots[0]["round"] == 2 and len(shots[0]["bids"]) == 2
    assert sorted(shots[0]["dice_counts"]) == [4, 5, 5]
    assert seen["later"]["version"] == shots[0]["version"] + 1
    # One self-contained file: nothing left in a write-ahead log beside it.
    assert not Path(f"{copy}-wal").exists()
    assert [path.name for path in copy.parent.iterdir()] == [copy.name]
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"

    tickets: list[SeatTicket] = seen["tickets"]

    async def on_the_copy(base: str) -> None:
        client, tables = await open_tables(base, tickets)
        again = [snapshot(table) for table in tables]
        # Same seats, dice, dice counts, bids, turn, version and fairness commitment.
        assert again == shots
        async with Client(base) as other:
            assert lobby_view(await other.room(seen["lobby"].code)) == seen["lobby_before"]
        # And the game plays on from there: the next bid is accepted at the next version.
        reply = await act(tables, [], [])
        assert reply["version"] == shots[0]["version"] + 1
        assert len(tables[0].state["game"]["bids"]) == 3
        await close_all(client, tables)

    with server_process(f"sqlite:///{copy}", env=SERVER_ENV) as (base, process):
        asyncio.run(on_the_copy(base))
        kill(process)


def made_database(directory: Path) -> Path:
    """A small SQLite database with dudo's tables (a server started and stopped on it)."""
    path = directory / "dudo.db"
    with server_process(f"sqlite:///{path}", env=SERVER_ENV) as (_base, process):
        kill(process)
    return path


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return made_database(tmp_path_factory.mktemp("source"))


def assert_refused(
    result: subprocess.CompletedProcess[str], fragment: str, status: int = 1
) -> None:
    """Refused in one line: exit status 1 when the command is well formed but the copy
    cannot be made, 2 for a bad option or argument."""
    assert result.returncode == status, result
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("dudo: error: ") and fragment in result.stderr, result.stderr


def listing(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir()}


def test_a_backup_never_overwrites_a_file(tmp_path: Path, source: Path) -> None:
    target = tmp_path / "taken.db"
    target.write_bytes(b"an older backup")
    before = listing(tmp_path)
    result = backup(str(target), "--database", f"sqlite:///{source}")
    assert_refused(result, "already exists")
    assert listing(tmp_path) == before
    dangling = tmp_path / "link.db"
    dangling.symlink_to(tmp_path / "nowhere.db")
    assert_refused(backup(str(dangling), "--database", f"sqlite:///{source}"), "already exists")
    assert not (tmp_path / "nowhere.db").exists()


def test_a_backup_makes_the_folders_missing_on_its_way(tmp_path: Path, source: Path) -> None:
    # The README's `dudo backup backups/dudo-2026-12-01.db` failed as written: "the
    # directory backups does not exist".
    result = backup("backups/dudo-2026-12-01.db", "--database", f"sqlite:///{source}", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"backed up {source} to backups/dudo-2026-12-01.db (")
    deeper = tmp_path / "a" / "b" / "copy.db"
    assert backup(str(deeper), "--database", f"sqlite:///{source}").returncode == 0
    for copy in (tmp_path / "backups" / "dudo-2026-12-01.db", deeper):
        with sqlite3.connect(copy) as connection:
            assert connection.execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_a_backup_that_fails_leaves_no_folder_it_made(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not a database at all, just some words " * 50)
    before = listing(tmp_path)
    target = tmp_path / "new" / "copy.db"
    result = backup(str(target), "--database", f"sqlite:///{tmp_path / 'notes.db'}")
    assert_refused(result, "not a database")
    assert listing(tmp_path) == before
    result = backup(str(target), "--database", f"sqlite:///{tmp_path / 'missing.db'}")
    assert_refused(result, "no database at")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("where", ["under a file", "deeper under a file", "read-only place"])
def test_a_backup_path_that_cannot_be_written_is_refused(
    tmp_path: Path, source: Path, where: str
) -> None:
    (tmp_path / "a-file").write_text("x")
    target = {
        "under a file": tmp_path / "a-file" / "copy.db",
        "deeper under a file": tmp_path / "a-file" / "no" / "copy.db",
        # /proc takes no new files, even from root (the tests may run as root, whom
        # no permission bit stops)
        "read-only place": Path("/proc/dudo-backup-test.db"),
    }[where]
    before = listing(tmp_path)
    result = backup(str(target), "--database", f"sqlite:///{source}")
    assert_refused(result, f"cannot write {target}")
    assert listing(tmp_path) == before
    assert not target.exists()


@pytest.mark.parametrize(
    "database, fragment",
    [
        ("postgresql://dudo:s3cret-pw@127.0.0.1:5432/dudo", "pg_dump"),
        ("memory://", "nothing to back up"),
        ("mysql://x/y", "must be sqlite:///FILE"),
    ],
)
def test_only_sqlite_databases_are_backed_up(tmp_path: Path, database: str, fragment: str) -> None:
    result = backup(str(tmp_path / "copy.db"), "--database", database)
    assert_refused(result, fragment, status=2)  # --database is not sqlite:///FILE
    assert "s3cret-pw" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_database_is_not_created(tmp_path: Path) -> None:
    result = backup(str(tmp_path / "copy.db"), "--database", f"sqlite:///{tmp_path / 'dudo.db'}")
    assert_refused(result, "no database at")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not a database at all, just some words " * 50)
    before = listing(tmp_path)
    result = backup(str(tmp_path / "copy.db"), "--database", f"sqlite:///{tmp_path / 'notes.db'}")
    assert_refused(result, "not a database")
    assert listing(tmp_path) == before


def test_the_copy_keeps_the_sources_permissions(tmp_path: Path, source: Path) -> None:
    result = backup("copy.db", "--database", f"sqlite:///{source}", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    copy = tmp_path / "copy.db"
    assert copy.stat().st_mode & 0o777 == source.stat().st_mode & 0o777
    assert "0 live rooms" in result.stdout
