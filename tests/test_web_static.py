"""The browser client's files and the rules sheet, checked without a browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from dudo.rules import PRESETS, Rules
from dudo.server.pages import WEB, rules_query, worked_examples
from serverkit import make_app

LOCALES = sorted((WEB / "locales").glob("*.json"))


def placeholders(text: object) -> set[str]:
    values = text.values() if isinstance(text, dict) else [text]
    return {name for value in values for name in re.findall(r"\{(\w+)\}", str(value))}


def test_every_locale_has_every_string() -> None:
    """Every key in every language, with the same placeholders and the same plural forms."""
    english = json.loads((WEB / "locales" / "en.json").read_text())
    assert {path.stem for path in LOCALES} == {"en", "de", "es"}
    for path in LOCALES:
        strings = json.loads(path.read_text())
        assert set(english) <= set(strings), (path.name, set(english) - set(strings))
        for key, text in english.items():
            other = strings[key]
            assert isinstance(other, dict) == isinstance(text, dict), (path.name, key)
            if isinstance(text, dict):
                assert set(other) == set(text) and "other" in text, (path.name, key)
            # A translation may leave out a number it spells ("{n} dice" as "ein Würfel")
            # but never ask for one the page does not give.
            assert placeholders(other) <= placeholders(text) | {"n"}, (path.name, key)


def test_every_server_error_code_is_translated() -> None:
    """The page shows refusals in its own language: a key err.<code> for every code the
    server or the engine can send (docs/protocol.md, "Error codes")."""
    from dudo.game import REASONS

    codes = set(REASONS)
    server = Path(__file__).resolve().parent.parent / "src" / "dudo" / "server"
    for source in server.glob("*.py"):
        text = source.read_text()
        codes |= set(re.findall(r'RoomError\(\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'error_message\(\s*"([a-z_]+)"', text))
    protocol = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    codes |= set(re.findall(r"^\| [0-9]{3} \| `([a-z_]+)`", protocol, re.MULTILINE))
    codes |= set(re.findall(r"^\| [0-9]{4} \| `([a-z_]+)`", protocol, re.MULTILINE))
    assert {"not_a_raise", "not_ready", "locked", "full", "removed"} <= codes, codes
    for path in LOCALES:
        strings = json.loads(path.read_text())
        missing = {code for code in codes if f"err.{code}" not in strings}
        assert not missing, (path.name, missing)


def test_grammar_that_was_wrong() -> None:
    """The second person is never built from a name: "Du muss", "Tú debe" cannot appear."""
    for path in LOCALES:
        text = path.read_text()
        assert "Du muss " not in text and "Tú debe " not in text, path.name
    english = json.loads((WEB / "locales" / "en.json").read_text())
    assert english["table.winner"] == {"one": "{names} wins!", "other": "{names} win!"}


def test_every_string_the_client_asks_for_exists() -> None:
    english = json.loads((WEB / "locales" / "en.json").read_text())
    used: set[str] = set()
    for script in (WEB / "js").glob("*.js"):
        used |= set(re.findall(r"\bt\('([a-z_.]+)'", script.read_text()))
    used |= set(re.findall(r'data-i18n="([a-z_.]+)"', (WEB / "index.html").read_text()))
    assert used and not used - set(english), used - set(english)


def test_pages_and_static_files_are_served() -> None:
    with TestClient(make_app()) as client:
        for path in ("/", "/r/ACDE", "/static/js/app.js", "/static/css/dudo.css",
                     "/static/locales/de.json", "/static/favicon.svg"):
            assert client.get(path).status_code == 200, path
        assert "type=\"module\"" in client.get("/r/ACDE").text
        catalogue = client.get("/api/presets").json()
        assert set(catalogue["presets"]) == set(PRESETS)
        assert catalogue["options"]["calza"] == {"type": "choice",
                                                 "choices": ["off", "in_turn", "any_time"]}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_rules_sheet_for_every_preset(preset: str) -> None:
    with TestClient(make_app()) as client:
        page = client.get(f"/rules?preset={preset}")
        assert page.status_code == 200
        assert "@media print" in page.text and "Worked examples" in page.text
        embedded = client.get(f"/rules?preset={preset}&embed=1")
        assert 'class="rules embed"' in embedded.text and "Presets:" not in embedded.text


def test_rules_sheet_of_house_rules_and_bad_rules() -> None:
    with TestClient(make_app()) as client:
        page = client.get("/rules?preset=tavern&starting_dice=3&calza=any_time")
        assert "House rules (based on Tavern)" in page.text
        assert "Calza" in page.text and "starting dice: 3" in page.text
        # A room's full option set (what the client links to) gives the same sheet.
        rules = Rules.preset("tavern", starting_dice=3, calza="any_time")
        full = "&".join(f"{key}={str(value).lower()}" for key, value in rules.to_json().items())
        assert client.get(f"/rules?{full}").text == page.text
        assert client.get("/rules?preset=nope").status_code == 400
        assert client.get("/rules?wild_ones=false&ones_bids=halve").status_code == 400


def test_worked_examples_follow_the_rules() -> None:
    halve = dict(worked_examples(Rules.preset("perudo")))
    assert "Switching to and from aces" in halve
    assert "three aces" in halve["Switching to and from aces"]
    never = dict(worked_examples(Rules.preset("tavern")))
    assert "Switching to and from aces" not in never and "Bidding aces" not in never
    for rules in (Rules.preset("no-wilds", starting_dice=1), Rules.preset("dudo", starting_dice=10),
                  Rules.preset("perudo", format="points")):
        assert len(worked_examples(rules)) >= 2
    assert rules_query(Rules.preset("dudo", starting_dice=3)) == "preset=dudo&starting_dice=3"


def test_package_data_ships_the_web_client() -> None:
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    for folder in ("web/*", "web/js/*", "web/css/*", "web/locales/*"):
        assert f'"{folder}"' in text
