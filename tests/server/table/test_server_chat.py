"""Table talk (protocol `chat`): a cleaned line of at most 140 characters to every socket
of the room, spectators included; one line per seat every two seconds; spectators cannot
write; the host can turn it off (even mid-game); nothing of it is stored."""

from __future__ import annotations

import asyncio

from starlette.testclient import TestClient
from test_names import NOTHING_VISIBLE

from dudo.store import MemoryStore
from serverkit import FakeClock, app_and_lobby, fast_config
from socketkit import connect, seat_table


def test_table_talk_reaches_everyone_with_its_limits() -> None:
    clock = FakeClock()
    store = MemoryStore()
    app, _ = app_and_lobby(fast_config(), store=store, clock=clock)
    with TestClient(app) as client:
        table = seat_table(client, 2)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "guest") as guest,
            connect(client, table.code, None, "watcher") as watcher,
        ):
            host.send({"type": "chat", "text": "  hola\u202e  a\ttodos 👋 "})
            for sock in (host, guest, watcher):
                line = sock.until(lambda m: m["type"] == "chat")
                assert line == {"type": "chat", "v": 1, "seat": 0, "text": "hola a todos 👋"}
            # One line every two seconds per seat.
            again = host.reply_to({"type": "chat", "text": "again"})
            assert again["code"] == "rate_limited", again
            clock.advance(2.1)
            assert guest.reply_to({"type": "ping"})["type"] == "pong"
            # At most 140 characters; nothing visible is nothing to say.
            long = guest.reply_to({"type": "chat", "text": "x" * 141})
            assert long["code"] == "bad_message", long
            blank = guest.reply_to({"type": "chat", "text": "\u200b\u202e "})
            assert blank["code"] == "bad_message", blank
            # Spectators read but do not write.
            assert watcher.reply_to({"type": "chat", "text": "hi"})["code"] == "spectator"
            # The host turns it off, mid-game too.
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            off = host.reply_to({"type": "configure", "id": "quiet", "chat": False})
            assert off["type"] == "ack", off
            guest.wait_for(lambda m: m["room"]["chat"] is False)
            refused = guest.reply_to({"type": "chat", "text": "anyone?"})
            assert refused["code"] == "chat_off", refused
            # Other settings still wait for the game's end.
            busy = host.reply_to({"type": "configure", "id": "t", "chat": True, "timer": 30})
            assert busy["code"] == "not_now", busy
        code = table.code
    # Nothing of the talk is in the room's log: it is not kept.
    entries = asyncio.run(store.load_log(code))
    assert entries and not any("hola" in str(entry.data) for entry in entries)


def test_a_line_that_shows_nothing_is_refused_and_zalgo_is_cut_down() -> None:
    # A Hangul filler, 140 accents with no letter, 139 accents on one letter: all three
    # once went to every socket of the room.
    clock = FakeClock()
    app, _ = app_and_lobby(fast_config(), clock=clock)
    with TestClient(app) as client:
        table = seat_table(client, 2)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "guest") as guest,
        ):
            for text in [*NOTHING_VISIBLE, "\u0301" * 140, "\u3164" * 140]:
                blank = host.reply_to({"type": "chat", "text": text})
                assert blank["code"] == "bad_message", (text, blank)
                assert blank["message"] == "chat: text: nothing to say", blank
            host.send({"type": "chat", "text": "a" + "\u0301" * 139})
            line = guest.until(lambda m: m["type"] == "chat")
            assert line["text"] == "a" + "\u0301" * 4, line
            clock.advance(2.1)
            host.send({"type": "chat", "text": "Rene\u0301e \U0001f3f3\ufe0f\u200d\U0001f308"})
            line = guest.until(lambda m: m["type"] == "chat" and m["text"] != "a" + "\u0301" * 4)
            assert line["text"] == "Rene\u0301e \U0001f3f3\ufe0f\u200d\U0001f308", line
