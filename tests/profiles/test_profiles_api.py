"""The profile API through a real app: registering, stats from games played to the end,
ratings entered once, transfer codes, export and forget, and every bad input refused."""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient
from test_names import LEGIBLE, NOTHING_VISIBLE
from test_store_contract import POSTGRES, backends

from dudo.profiles.book import TRANSFERS_KEPT
from dudo.store import open_store
from profilekit import me, new_secret, play_table, register
from serverkit import app_and_lobby, fast_config, make_app


def app_client(**config: float) -> TestClient:
    return TestClient(make_app(fast_config(grace=0.0, **config)))


def test_a_profile_is_registered_once_and_its_secret_is_never_stored_or_echoed() -> None:
    secret = new_secret()
    with app_client() as client:
        first = client.post("/api/profile", json={"secret": secret, "name": "Ana"})
        assert first.status_code == 201
        again = client.post("/api/profile", json={"secret": secret, "name": "Other"})
        assert again.status_code == 200
        assert again.json()["profile"] == first.json()["profile"]
        assert secret not in first.text
        book = client.app.state.profiles.book()  # type: ignore[attr-defined]
        assert secret not in repr(book.keys) and secret not in repr(book.profiles)
        shown = me(client, secret)
        assert shown["profile"]["name"] == "Ana"
        assert shown["stats"]["total"]["games"] == 0


def test_stats_and_ratings_come_from_games_played_through_the_server() -> None:
    ana, ben = new_secret(), new_secret()
    with app_client() as client:
        register(client, ana, "Ana")
        register(client, ben, "Ben")
        code, _ = play_table(client, [("Ana", ana), ("Ben", ben)], bots=1, games=2)
        mine, theirs = me(client, ana), me(client, ben)
        for data in (mine, theirs):
            total = data["stats"]["total"]
            assert total["games"] == 2
            assert total["rounds"] >= 2
            assert data["profile"]["rating"]["games"] == 2
            assert data["stats"]["presets"]["perudo"]["games"] == 2
            assert len(data["stats"]["timeline"]) == 2
        # Exactly one game has one winner: the three seats share two wins' worth at most.
        assert mine["stats"]["total"]["wins"] + theirs["stats"]["total"]["wins"] <= 2
        assert mine["profile"]["rating"]["mu"] != 25.0
        series = client.get(f"/api/rooms/{code}/series").json()
        assert series["games"] == 2
        assert {row["name"] for row in series["rows"]} >= {"Ana", "Ben"}
        assert sum(row["wins"] for row in series["rows"]) == 2
        # The public record carries no profile.
        records = client.app.state.profiles  # type: ignore[attr-defined]
        for game_id, _, _ in client.portal.call(
            records.book().games_of,  # type: ignore
            mine["profile"]["id"],
        ):
            record = client.get(f"/api/games/{game_id}").text
            assert mine["profile"]["id"] not in record and ana not in record


def test_a_game_with_one_profile_is_counted_but_not_rated() -> None:
    ana = new_secret()
    with app_client() as client:
        register(client, ana)
        play_table(client, [("Ana", ana), ("Anon", None)], bots=1)
        data = me(client, ana)
        assert data["stats"]["total"]["games"] == 1
        assert data["profile"]["rating"]["games"] == 0
        assert data["profile"]["rating"]["mu"] == 25.0


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"secret": "abc"}, "bad_request"),
        ({"secret": "g" * 64}, "bad_request"),
        ({"secret": "A" * 64}, "bad_request"),
        ({}, "bad_request"),
        ({"secret": "0" * 64, "extra": 1}, "bad_request"),
    ],
)
def test_malformed_secrets_are_refused(body: dict[str, object], error: str) -> None:
    with app_client() as client:
        answer = client.post("/api/profile/me", json=body)
        assert answer.status_code == 400 and answer.json()["error"] == error


def test_a_secret_of_another_server_is_unknown_here_and_counts_as_a_guess() -> None:
    with app_client() as client:
        unknown = client.post("/api/profile/me", json={"secret": new_secret()})
        assert unknown.status_code == 404 and unknown.json()["error"] == "no_profile"
        for _ in range(30):
            last = client.post("/api/profile/me", json={"secret": new_secret()})
        assert last.status_code == 429 and last.json()["error"] == "too_many_guesses"


def test_a_flood_of_new_profiles_is_limited_and_makes_nothing() -> None:
    with app_client() as client:
        answers = [client.post("/api/profile", json={"secret": new_secret()}) for _ in range(12)]
        assert [a.status_code for a in answers[:10]] == [201] * 10
        assert answers[10].status_code == 429
        assert answers[10].json()["error"] == "too_many_profiles"
        book = client.app.state.profiles.book()  # type: ignore[attr-defined]
        assert len(book.profiles) == 10


def test_a_transfer_code_moves_the_profile_once() -> None:
    old, new = new_secret(), new_secret()
    with app_client() as client:
        made = register(client, old, "Ana")
        code = client.post("/api/profile/transfer", json={"secret": old}).json()
        assert code["link"] == f"http://testserver/me#claim={code['code']}"
        assert code["qr"].startswith("<svg")
        # The page's origin names the link's site, but only this site's own.
        other = client.post(
            "/api/profile/transfer", json={"secret": old, "origin": "https://evil.example"}
        ).json()
        assert other["link"].startswith("http://testserver/me#claim=")
        claimed = client.post("/api/profile/claim", json={"secret": new, "code": code["code"]})
        assert claimed.status_code == 200, claimed.text
        assert claimed.json()["profile"]["id"] == made["id"]
        assert me(client, new)["profile"]["id"] == made["id"]
        assert me(client, old)["profile"]["id"] == made["id"]  # the first device keeps it
        again = client.post(
            "/api/profile/claim", json={"secret": new_secret(), "code": code["code"]}
        )
        assert again.status_code == 409 and again.json()["error"] == "code_used"
        typed = code["code"].lower().replace("-", " ")
        assert (
            client.post("/api/profile/claim", json={"secret": new_secret(), "code": typed}).json()[
                "error"
            ]
            == "code_used"
        )


def test_a_claim_with_the_secret_of_another_profile_is_refused_and_spends_nothing() -> None:
    mine, theirs = new_secret(), new_secret()
    with app_client() as client:
        my_profile = register(client, mine, "Mine")
        their_profile = register(client, theirs, "Theirs")
        code = client.post("/api/profile/transfer", json={"secret": theirs}).json()["code"]
        taken = client.post("/api/profile/claim", json={"secret": mine, "code": code})
        assert taken.status_code == 409 and taken.json()["error"] == "code_taken", taken.text
        assert "new secret" in taken.json()["message"]
        assert me(client, mine)["profile"]["id"] == my_profile["id"]
        fresh = new_secret()
        claimed = client.post("/api/profile/claim", json={"secret": fresh, "code": code})
        assert (
            claimed.status_code == 200 and me(client, fresh)["profile"]["id"] == their_profile["id"]
        )


def test_forged_and_expired_transfer_codes_are_refused_and_change_nothing() -> None:
    old = new_secret()
    with app_client() as client:
        register(client, old)
        forged = client.post(
            "/api/profile/claim", json={"secret": new_secret(), "code": "ABCD-EFGH-JKMN"}
        )
        assert forged.status_code == 404 and forged.json()["error"] == "code_unknown"
        garbage = client.post(
            "/api/profile/claim", json={"secret": new_secret(), "code": "not a code!"}
        )
        assert garbage.json()["error"] == "code_unknown"
        desk = client.app.state.profiles  # type: ignore[attr-defined]
        code = client.post("/api/profile/transfer", json={"secret": old}).json()["code"]
        real_clock = desk.clock
        desk.clock = lambda: real_clock() + 601
        late = new_secret()
        expired = client.post("/api/profile/claim", json={"secret": late, "code": code})
        assert expired.status_code == 410 and expired.json()["error"] == "code_expired"
        desk.clock = real_clock
        assert client.post("/api/profile/me", json={"secret": late}).status_code == 404


def test_export_holds_everything_and_forget_deletes_it() -> None:
    ana, ben = new_secret(), new_secret()
    with app_client() as client:
        profile = register(client, ana, "Ana")
        register(client, ben, "Ben")
        client.post("/api/profile/edit", json={"secret": ana, "leaderboard": True})
        client.post("/api/profile/edit", json={"secret": ben, "leaderboard": True})
        play_table(client, [("Ana", ana), ("Ben", ben)], bots=0)
        board = client.get("/api/leaderboard").json()["players"]
        assert sorted(p["name"] for p in board) == ["Ana", "Ben"]
        exported = client.post("/api/profile/export", json={"secret": ana})
        assert "attachment" in exported.headers["content-disposition"]
        data = exported.json()
        assert data["profile"]["id"] == profile["id"] and len(data["games"]) == 1
        gone = client.post("/api/profile/forget", json={"secret": ana})
        assert gone.json() == {"forgotten": profile["id"]}
        assert client.post("/api/profile/me", json={"secret": ana}).status_code == 404
        assert [p["name"] for p in client.get("/api/leaderboard").json()["players"]] == ["Ben"]
        book = client.app.state.profiles.book()  # type: ignore[attr-defined]
        assert profile["id"] not in repr(vars(book))


def test_names_are_cleaned_and_the_leaderboard_is_opt_in() -> None:
    ana = new_secret()
    with app_client() as client:
        register(client, ana)
        bad = client.post("/api/profile/edit", json={"secret": ana, "name": "\u200b"})
        assert bad.status_code == 400 and bad.json()["error"] == "bad_name"
        good = client.post("/api/profile/edit", json={"secret": ana, "name": "  Ana B "})
        assert good.json()["profile"]["name"] == "Ana B"
        assert good.json()["profile"]["leaderboard"] is False
        for flag in ("yes", 1, "true"):  # a flag is true or false, not converted
            loose = client.post("/api/profile/edit", json={"secret": ana, "leaderboard": flag})
            assert loose.status_code == 400, loose.text
            assert "leaderboard" in loose.json()["message"], loose.json()
        me = client.post("/api/profile/me", json={"secret": ana}).json()["profile"]
        assert me["leaderboard"] is False


def test_a_profile_name_that_shows_nothing_is_refused() -> None:
    # "\u3164" (a Hangul filler) was a profile's name, shown on the leaderboard as nothing.
    ana = new_secret()
    with app_client() as client:
        register(client, ana)
        for name in NOTHING_VISIBLE:
            made = client.post("/api/profile", json={"secret": new_secret(), "name": name})
            assert made.status_code == 400, (name, made.text)
            assert made.json()["error"] == "bad_name", made.json()
            edited = client.post("/api/profile/edit", json={"secret": ana, "name": name})
            assert edited.status_code == 400 and edited.json()["error"] == "bad_name"
            # Refused as well when the profile exists already (it was ignored in silence).
            again = client.post("/api/profile", json={"secret": ana, "name": name})
            assert again.status_code == 400 and again.json()["error"] == "bad_name", again.text
        assert me(client, ana)["profile"]["name"] == "Ana"
        made = client.post("/api/profile", json={"secret": new_secret(), "name": LEGIBLE[0]})
        assert made.status_code == 201 and made.json()["profile"]["name"] == LEGIBLE[0]
        for name in LEGIBLE:
            edited = client.post("/api/profile/edit", json={"secret": ana, "name": name})
            assert edited.json()["profile"]["name"] == name, edited.text


def test_a_game_whose_node_died_at_its_end_is_rated_once_when_the_room_is_rebuilt(
    tmp_path: Path,
) -> None:
    """The first server saves the record and dies before the profiles hear of it (its
    hook does nothing); the next one rebuilds the room from the log, enters the game, and
    a third start enters nothing again."""
    url = f"sqlite:///{tmp_path / 'dudo.db'}"
    ana, ben = new_secret(), new_secret()

    async def died(*_: object) -> None:
        return None

    with TestClient(
        make_app(fast_config(grace=0.0, after_game=died), store=open_store(url))
    ) as client:
        register(client, ana, "Ana")
        register(client, ben, "Ben")
        code, _ = play_table(client, [("Ana", ana), ("Ben", ben)], bots=0, entered=False)
        assert me(client, ana)["stats"]["total"]["games"] == 0
    for _ in range(2):
        with TestClient(make_app(fast_config(grace=0.0), store=open_store(url))) as client:
            assert client.get(f"/api/rooms/{code}").json()["status"] == "over"
            for secret in (ana, ben):
                data = me(client, secret)
                assert data["stats"]["total"]["games"] == 1
                assert data["profile"]["rating"]["games"] == 1
            assert client.get(f"/api/rooms/{code}/series").json()["games"] == 1


def test_the_operator_forgets_a_profile_with_dudo_forget(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from dudo.cli import app as cli

    url = f"sqlite:///{tmp_path / 'dudo.db'}"
    ana, ben = new_secret(), new_secret()
    with TestClient(make_app(fast_config(grace=0.0), store=open_store(url))) as client:
        made = register(client, ana, "Ana")
        register(client, ben, "Ben")
        play_table(client, [("Ana", ana), ("Ben", ben)], bots=0)
    runner = CliRunner()
    bad = runner.invoke(cli, ["forget", "not-an-id!", "--database", url])
    assert bad.exit_code == 2 and "is not a profile id" in bad.stderr
    done = runner.invoke(cli, ["forget", made["id"], "--database", url])
    assert done.exit_code == 0, done.output
    assert f"forgot profile {made['id']}" in done.stdout
    again = runner.invoke(cli, ["forget", made["id"], "--database", url])
    # Exit 1: a well-formed id the database does not hold (2 is for what is typed wrong).
    assert again.exit_code == 1 and "no profile" in again.stderr
    database = sqlite3.connect(tmp_path / "dudo.db")
    for table in ("profiles", "profile_keys", "profile_games", "transfer_codes"):
        rows = database.execute(f"SELECT * FROM {table}").fetchall()
        assert made["id"] not in repr(rows), table
    assert database.execute("SELECT count(*) FROM games").fetchone() == (1,)
    with TestClient(make_app(fast_config(grace=0.0), store=open_store(url))) as client:
        assert client.post("/api/profile/me", json={"secret": ana}).status_code == 404
        assert me(client, ben)["stats"]["total"]["games"] == 1


def test_a_seat_taken_with_an_unknown_secret_counts_for_nobody_and_as_a_guess() -> None:
    ana, stranger = new_secret(), new_secret()
    app, holder = app_and_lobby(fast_config(grace=0.0))
    with TestClient(app) as client:
        register(client, ana)
        created = client.post("/api/rooms", json={"name": "Ana", "seats": 2, "profile": ana})
        code = created.json()["code"]
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "X", "profile": stranger})
        assert joined.status_code == 200
        assert holder.lobby is not None
        assert sum(len(misses) for misses in holder.lobby.guesses.clients.misses.values()) == 1
        malformed = client.post(f"/api/rooms/{code}/join", json={"name": "Y", "profile": "1"})
        assert malformed.status_code == 400 and malformed.json()["error"] == "bad_request"
        room = client.get(f"/api/rooms/{code}").json()
        assert [seat["name"] for seat in room["seats"]] == ["Ana", "X"]
        assert "profile" not in str(room)  # the summary shows no profile either


def test_unknown_rooms_have_no_series_and_count_as_guesses() -> None:
    with app_client() as client:
        answers = [client.get("/api/rooms/QQQQ/series") for _ in range(25)]
        assert answers[0].status_code == 200 and answers[0].json()["games"] == 0
        assert answers[-1].status_code == 429
        assert answers[-1].json()["error"] == "too_many_guesses"


def test_a_series_is_found_by_its_code_typed_in_any_case_and_with_spaces() -> None:
    ana = new_secret()
    app, holder = app_and_lobby(fast_config(grace=0.0))
    with TestClient(app) as client:
        register(client, ana)
        code, _ = play_table(client, [("Ana", ana)], bots=1)
        assert holder.lobby is not None
        misses = holder.lobby.guesses.clients.misses
        before = sum(len(times) for times in misses.values())
        exact = client.get(f"/api/rooms/{code}/series").json()
        assert exact["games"] == 1 and exact["room"] == code
        for typed in (code.lower(), " ".join(code), f" {code[:2].lower()} {code[2:]} "):
            answer = client.get(f"/api/rooms/{quote(typed)}/series")
            assert answer.status_code == 200 and answer.json() == exact, typed
        # None of them was a miss against the client's budget of unknown codes.
        assert sum(len(times) for times in misses.values()) == before


def test_the_creation_limit_forgets_quiet_addresses() -> None:
    from dudo.profiles.desk import CreationLimit

    now = [0.0]
    limit = CreationLimit(limit=2, window=10.0, clock=lambda: now[0])
    assert limit.take("a") and limit.take("a") and not limit.take("a")
    for number in range(10_001):
        limit.take(f"x{number}")
    now[0] = 11.0
    assert limit.take("a")  # the window has passed
    assert len(limit.made) == 1  # the quiet addresses are gone


def store_events(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.fields["event"]  # type: ignore[attr-defined]
        for record in caplog.records
        if record.name == "dudo.store" and hasattr(record, "fields")
    ]


def wait_entered(client: TestClient, secret: str, games: int, timeout: float = 30.0) -> None:
    """Until the profile counts ``games`` games (asking the series of a room that has none
    yet would count as guesses)."""
    end = time.monotonic() + timeout
    while me(client, secret)["stats"]["total"]["games"] < games:
        assert time.monotonic() < end, "the game was never entered"
        time.sleep(0.05)


def test_a_game_the_book_failed_to_enter_is_retried_and_counted_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The record is saved, then entering the game fails three times (the book's
    database away): the room tries again under its backoff, logs the outage once, and the
    game ends up counted and rated exactly once."""
    ana, ben = new_secret(), new_secret()
    app, holder = app_and_lobby(fast_config(grace=0.0))
    caplog.set_level(logging.INFO, logger="dudo.store")
    caplog.set_level(logging.INFO, logger="dudo.room")
    with TestClient(app) as client:
        register(client, ana, "Ana")
        register(client, ben, "Ben")
        book = client.app.state.profiles.book()  # type: ignore[attr-defined]
        enter = book.enter_game
        calls: list[bool | None] = []

        async def flaky(game: Any) -> bool:
            if len(calls) < 3:
                calls.append(None)
                raise OSError("the database went away (test)")
            entered: bool = await enter(game)
            calls.append(entered)
            return entered

        book.enter_game = flaky
        play_table(client, [("Ana", ana), ("Ben", ben)], bots=1, entered=False)
        wait_entered(client, ana, 1)
        assert calls == [None, None, None, True]
        for secret in (ana, ben):
            data = me(client, secret)
            assert data["stats"]["total"]["games"] == 1
            assert data["profile"]["rating"]["games"] == 1
        assert holder.lobby is not None
        room = next(iter(holder.lobby.rooms.values()))
        assert room.journal.unentered == {} and room.journal.entering is None
        assert not room.idle(room.clock())  # (a player's socket is gone; the game is new)
    assert store_events(caplog) == ["store_unavailable", "store_recovered"]
    entered = [r for r in caplog.records if getattr(r, "fields", {}).get("event") == "game_entered"]
    assert [r.fields["tries"] for r in entered] == [3]  # type: ignore[attr-defined]


def failing_entries(dialect: str, marker: str) -> list[str]:
    """DDL that makes the real database refuse to enter a game whose names hold ``marker``
    (the record is saved in another table, so it is kept): a trigger on finished_games."""
    if dialect == "sqlite":
        return [
            "CREATE TRIGGER book_away BEFORE INSERT ON finished_games "
            f"WHEN instr(NEW.names, '{marker}') > 0 "
            "BEGIN SELECT RAISE(ABORT, 'the book is away (test)'); END"
        ]
    return [
        "CREATE FUNCTION book_away() RETURNS trigger AS $$ BEGIN "
        f"IF position('{marker}' in NEW.names) > 0 THEN "
        "RAISE EXCEPTION 'the book is away (test)'; END IF; RETURN NEW; END $$ "
        "LANGUAGE plpgsql",
        "CREATE TRIGGER book_away BEFORE INSERT ON finished_games "
        "FOR EACH ROW EXECUTE FUNCTION book_away()",
    ]


@contextlib.contextmanager
def database_of_one_test(backend: str, tmp_path: Path) -> Iterator[str]:
    """SQLite in tmp_path, or a PostgreSQL schema of this test's own (dropped after)."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'dudo.db'}"
        return
    assert POSTGRES
    schema = f"dudo_entry_{secrets.token_hex(4)}"
    separator = "&" if "?" in POSTGRES else "?"
    try:
        yield f"{POSTGRES}{separator}schema={schema}"
    finally:
        subprocess.run(
            ["psql", POSTGRES, "-q", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
            capture_output=True,
            timeout=30,
        )


@pytest.mark.parametrize("backend", [name for name in backends() if name != "memory"])
def test_a_game_the_real_database_refused_to_enter_is_entered_once_after_it_recovers(
    backend: str, tmp_path: Path
) -> None:
    """SQLite or PostgreSQL refuses the game's entry (a trigger) just after the record is
    saved; the room keeps trying; once the database takes it again the game is counted
    and rated exactly once, and a restart that rebuilds the room enters nothing again."""
    ana, ben = new_secret(), new_secret()
    marker = f"Z{secrets.token_hex(3)}"
    with database_of_one_test(backend, tmp_path) as url:
        app, holder = app_and_lobby(fast_config(grace=0.0), store=open_store(url))
        with TestClient(app) as client:
            lobby = holder.lobby
            assert lobby is not None
            engine = lobby.store.engine  # type: ignore[attr-defined]

            async def run_sql(*statements: str) -> None:
                async with engine.begin() as connection:
                    for statement in statements:
                        await connection.execute(text(statement))

            register(client, ana, "Ana")
            register(client, ben, "Ben")
            client.portal.call(run_sql, *failing_entries(engine.dialect.name, marker))
            code, _ = play_table(
                client, [(f"Ana{marker}", ana), ("Ben", ben)], bots=1, entered=False
            )
            end = time.monotonic() + 20
            while lobby.health.failures < 2:  # refused twice: it keeps trying
                assert time.monotonic() < end, "entering the game was not tried again"
                time.sleep(0.05)
            assert me(client, ana)["stats"]["total"]["games"] == 0
            assert lobby.health.down
            drop = ["DROP TRIGGER book_away"]
            if engine.dialect.name == "postgresql":
                drop = ["DROP TRIGGER book_away ON finished_games", "DROP FUNCTION book_away()"]
            client.portal.call(run_sql, *drop)
            wait_entered(client, ana, 1)
            assert not lobby.health.down
        for _ in range(2):  # rebuilt from its log: the record saved again, entered again
            with TestClient(make_app(fast_config(grace=0.0), store=open_store(url))) as client:
                assert client.get(f"/api/rooms/{code}").json()["status"] == "over"
                for secret in (ana, ben):
                    data = me(client, secret)
                    assert data["stats"]["total"]["games"] == 1
                    assert data["profile"]["rating"]["games"] == 1
                assert client.get(f"/api/rooms/{code}/series").json()["games"] == 1


def test_the_sweeper_purges_expired_transfer_codes(caplog: pytest.LogCaptureFixture) -> None:
    """The server's hourly chores (the first sweep runs them too) delete the transfer
    codes expired by then; a code just made stays and still works."""
    ana, ben = new_secret(), new_secret()
    caplog.set_level(logging.INFO, logger="dudo.server")
    app, _ = app_and_lobby(fast_config(grace=0.0), sweep_interval=0.05)
    with TestClient(app) as client:
        register(client, ana, "Ana")
        bens = register(client, ben, "Ben")["id"]
        book = client.app.state.profiles.book()  # type: ignore[attr-defined]
        book.transfers["f" * 64] = (bens, 1.0, True)  # used, long expired
        book.transfers["e" * 64] = (bens, 2.0, False)  # expired, never used
        made = client.post("/api/profile/transfer", json={"secret": ana}).json()
        end = time.monotonic() + 10
        while len(book.transfers) > 1:
            assert time.monotonic() < end, "the expired codes were never purged"
            time.sleep(0.02)
        claimed = client.post(
            "/api/profile/claim", json={"code": made["code"], "secret": new_secret()}
        )
        assert claimed.status_code == 200, claimed.text
    purged = [
        r
        for r in caplog.records
        if getattr(r, "fields", {}).get("event") == "transfer_codes_purged"
    ]
    assert [r.fields["codes"] for r in purged] == [2]  # type: ignore[attr-defined]


def test_a_new_transfer_code_beyond_the_few_kept_replaces_the_oldest() -> None:
    ana = new_secret()
    with app_client() as client:
        register(client, ana, "Ana")
        codes = [
            client.post("/api/profile/transfer", json={"secret": ana}).json()["code"]
            for _ in range(TRANSFERS_KEPT + 1)
        ]
        book = client.app.state.profiles.book()  # type: ignore[attr-defined]
        assert len(book.transfers) == TRANSFERS_KEPT
        oldest = client.post("/api/profile/claim", json={"code": codes[0], "secret": new_secret()})
        assert oldest.status_code == 404 and oldest.json()["error"] == "code_unknown"
        for code in codes[1:]:
            claim = client.post("/api/profile/claim", json={"code": code, "secret": new_secret()})
            assert claim.status_code == 200, claim.text
