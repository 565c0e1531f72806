"""The rules sheet in English, German and Spanish: every word from the locale files."""

from __future__ import annotations

import html
import json
import re
import string
from importlib import resources
from typing import Any
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from dudo.bids import Bid
from dudo.cli import app
from dudo.hands import ALL_HANDS, Hand
from dudo.rules import PRESETS, Rules
from dudo.rules_text import (
    LANGUAGES,
    bid_words,
    hand_words,
    rules_sections,
    rules_sheet,
    title,
)
from dudo.server.web.pages import rules_query
from serverkit import make_app

# Rule sets that between them take every branch of the sheet.
VARIANTS = [
    *PRESETS.values(),
    Rules.preset(
        "perudo",
        starting_dice=1,
        calza="any_time",
        calza_min_players=3,
        palifico=True,
        palifico_once_per_player=True,
        palifico_min_players=4,
        palifico_open_on_ones=True,
        palifico_one_die_may_change_face=True,
        loss_by_difference=True,
        first_opener="rotate",
    ),
    Rules.preset(
        "dudo",
        format="points",
        points_rounds=1,
        loss_by_difference=True,
        calza="in_turn",
        cap_at_dice_in_play=False,
    ),
    Rules.preset("tavern", format="points", points_rounds=7, first_opener="host"),
    Rules.preset("no-wilds", calza="in_turn", starting_dice=2),
    Rules.preset("ones-lock", wild_ones=False),
    Rules.preset("dudo", ones_bids="never"),
    Rules.preset("tavern", cap_at_dice_in_play=False),
    Rules.preset(
        "common-hand",
        cap_at_dice_in_play=False,
        format="points",
        points_rounds=3,
        first_opener="rolloff",
    ),
    Rules.preset("common-hand", starting_dice=1),
]

# Words that give away an English sentence left in a German or Spanish sheet.
ENGLISH = {
    "the",
    "bid",
    "bids",
    "player",
    "players",
    "round",
    "rounds",
    "wild",
    "raise",
    "caller",
    "bidder",
    "aces",
    "lose",
    "loses",
    "points",
    "face",
    "and",
    "with",
}


def locale(lang: str) -> dict[str, str]:
    source = resources.files("dudo").joinpath("locales", f"rules.{lang}.json")
    loaded: dict[str, str] = json.loads(source.read_text(encoding="utf-8"))
    return loaded


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_language_has_the_same_keys_and_placeholders() -> None:
    english = locale("en")
    for lang in LANGUAGES:
        strings = locale(lang)
        assert set(strings) == set(english), (lang, set(strings) ^ set(english))
        for key, template in strings.items():
            assert isinstance(template, str) and template.strip(), (lang, key)
            assert placeholders(template) == placeholders(english[key]), (lang, key)


# Each language quotes in its own way, and only that way (a printed sheet once mixed
# "four 5s" with “Dudo!”).
QUOTES = {"en": {'"'}, "de": {"„", "“"}, "es": {"«", "»"}}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_sheet_and_its_page_quote_in_one_style(lang: str) -> None:
    with TestClient(make_app()) as client:
        for rules in VARIANTS:
            overrides = rules.to_overrides()
            query = "&".join(f"{key}={str(value).lower()}" for key, value in overrides.items())
            page = client.get(f"/rules?{query}&lang={lang}").text
            body = html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", " ", page, flags=re.S))
            for text in (rules_sheet(rules, lang), body):
                used = {mark for mark in text if mark in '"“”„«»'}
                assert used <= QUOTES[lang], (lang, overrides, used)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda rules: str(rules.to_overrides()))
@pytest.mark.parametrize("lang", ["de", "es"])
def test_translated_sheets_have_no_english_left(rules: Rules, lang: str) -> None:
    sheet = rules_sheet(rules, lang)
    english = rules_sheet(rules)
    assert sheet != english
    assert len(rules_sections(rules, lang)) == len(rules_sections(rules))
    words = set(re.findall(r"[^\W\d_]+", sheet.lower()))
    assert not words & ENGLISH, words & ENGLISH
    assert "{" not in sheet and "}" not in sheet
    assert title(rules, lang) != title(rules) or rules.preset_name == "perudo"


def test_english_is_the_default_and_bids_read_as_before() -> None:
    rules = PRESETS["perudo"]
    assert rules_sheet(rules) == rules_sheet(rules, "en")
    assert rules_sheet(rules).startswith("Perudo (classic)\n================\n")
    assert all(bid_words(q, f) == Bid(q, f).words() for q in range(1, 25) for f in range(1, 7))
    assert [bid_words(4, 5, "de"), bid_words(3, 1, "de"), bid_words(1, 1, "de")] == [
        "vier 5er",
        "drei Einsen",
        "eine Eins",
    ]
    assert [bid_words(4, 5, "es"), bid_words(3, 1, "es"), bid_words(1, 6, "es")] == [
        "cuatro cincos",
        "tres ases",
        "un seis",
    ]
    with pytest.raises(ValueError):
        rules_sheet(rules, "xx")


def test_without_the_cap_the_sheet_gives_the_bound_on_aces_where_aces_are_bid() -> None:
    perudo = dict(rules_sections(Rules.preset("perudo", cap_at_dice_in_play=False)))
    assert perudo["Bidding"][-1] == (
        "A bid may name more dice than there are in play (it will lose if called): up to "
        "twice the dice in play plus one, but no more aces than there are dice in play."
    )
    tavern = dict(rules_sections(Rules.preset("tavern", cap_at_dice_in_play=False)))
    assert "twice the dice in play plus one" in tavern["Bidding"][-1]
    assert "aces" not in tavern["Bidding"][-1]  # nobody bids them at this table


def test_ones_bids_never_wins_over_the_palifico_options_on_the_sheet() -> None:
    rules = Rules.preset("dudo", ones_bids="never")
    assert rules.palifico_open_on_ones and rules.palifico_one_die_may_change_face
    palifico = dict(rules_sections(rules))["Palifico"]
    assert "nobody bids ones at this table, not even in a palifico round" in palifico[1]
    assert "never to ones" in palifico[2]
    assert not any("aces included" in p or "ones as the lowest face" in p for p in palifico)
    for lang in ("de", "es"):
        assert rules_sheet(rules, lang) != rules_sheet(PRESETS["dudo"], lang)


@pytest.mark.parametrize(
    ("query", "header", "expected"),
    [
        ("", None, "en"),
        ("&lang=de", None, "de"),
        ("&lang=ES", "de-DE", "es"),
        ("", "es-ES,es;q=0.9,en;q=0.8", "es"),
        ("", "fr-FR, de;q=0.5", "de"),
        ("", "de;q=0.2, es;q=0.7", "es"),
        ("&lang=xx", "de", "de"),
        ("", "fr, it;q=0.5", "en"),
    ],
)
def test_the_page_follows_lang_then_accept_language(
    query: str, header: str | None, expected: str
) -> None:
    headers = {"accept-language": header} if header else {}
    with TestClient(make_app()) as client:
        page = client.get(f"/rules?preset=tavern&starting_dice=3{query}", headers=headers)
    assert page.status_code == 200
    assert f'<html lang="{expected}">' in page.text
    assert title(Rules.preset("tavern", starting_dice=3), expected) in page.text
    if expected != "en":
        assert "Worked examples" not in page.text and "Player 1" not in page.text


def test_the_page_switches_language_and_keeps_the_options() -> None:
    with TestClient(make_app()) as client:
        page = client.get("/rules?preset=tavern&starting_dice=3&calza=any_time&lang=de")
        assert "Durchgespielte Beispiele" in page.text and "Würfel pro Spieler: 3" in page.text
        assert (
            'href="/rules?preset=tavern&amp;starting_dice=3&amp;calza=any_time&amp;lang=es"'
            in page.text
        )
        assert "Presets" not in page.text
        embedded = client.get("/rules?preset=perudo&embed=1&lang=es")
        assert 'class="rules embed"' in embedded.text and "Variantes:" not in embedded.text
        assert 'href="/rules?preset=perudo&amp;embed=1&amp;lang=de"' in embedded.text
        bad = client.get("/rules?preset=nope&lang=es")
        assert bad.status_code == 400 and '<html lang="es">' in bad.text


def browser_query(options: dict[str, Any]) -> str:
    """A /rules query as the browser client writes it from a rules object:
    ``new URLSearchParams(...)`` of every entry as ``String(value)`` (room.js rulesHref,
    replay.js renderShell and loadAnalysis), so true is "true" and 5 is "5"."""
    return urlencode(
        [
            (key, str(value).lower() if isinstance(value, bool) else str(value))
            for key, value in options.items()
        ]
    )


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda rules: rules_query(rules))
def test_the_rules_links_of_the_table_and_the_game_page_open_the_sheet(rules: Rules) -> None:
    links = {
        # The table: the room's rules (every option, as the state sends them) and the language.
        f"/rules?{browser_query({**rules.to_json(), 'lang': 'de'})}": "de",
        # The game page: the record's rules, then the analysis' shortest form.
        f"/rules?{browser_query(rules.to_json())}": "en",
        f"/rules?{browser_query(rules.to_overrides())}": "en",
    }
    with TestClient(make_app()) as client:
        for link, lang in links.items():
            page = client.get(link)
            assert page.status_code == 200, (link, page.text[-400:])
            assert f"<h1>{html.escape(title(rules, lang))}</h1>" in page.text, link
            # The sheet's own link is the shortest query for the same rules.
            own = f"/rules?{rules_query(rules)}" + ("&lang=de" if "lang=" in link else "")
            assert f'href="{html.escape(own)}"' in page.text, link


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("calza=maybe", "option 'calza' must be one of off, in_turn, any_time, not 'maybe'"),
        ("calza=false", "option 'calza' must be one of off, in_turn, any_time, not 'false'"),
        ("wild_ones=maybe", "option 'wild_ones' must be true or false, not 'maybe'"),
        ("palifico=1", "option 'palifico' must be true or false, not '1'"),
        ("starting_dice=off", "option 'starting_dice' must be a whole number 1..10, not 'off'"),
        ("starting_dice=11", "option 'starting_dice' must be 1..10, not 11"),
        ("preset=perudo&shoes=off", "unknown option 'shoes'"),
    ],
)
def test_a_value_the_rules_do_not_have_is_a_clear_400(query: str, message: str) -> None:
    with TestClient(make_app()) as client:
        page = client.get(f"/rules?{query}")
    assert page.status_code == 400
    assert html.escape(message) in page.text


def test_cli_prints_the_sheet_in_a_language() -> None:
    runner = CliRunner()
    german = runner.invoke(app, ["rules", "perudo", "--lang", "de"])
    assert german.exit_code == 0 and "Gebot" in german.output
    assert german.output.strip() == rules_sheet(PRESETS["perudo"], "de").strip()
    spanish = runner.invoke(app, ["rules", "tavern", "--lang", "es", "--set", "calza=in_turn"])
    assert spanish.exit_code == 0 and "calzar" in spanish.output
    wrong = runner.invoke(app, ["rules", "--lang", "xx"])
    assert wrong.exit_code == 2


@pytest.mark.parametrize("lang", ["de", "es"])
def test_translated_pages_have_no_english_left(lang: str) -> None:
    with TestClient(make_app()) as client:
        for rules in VARIANTS:
            query = "&".join(
                f"{key}={str(value).lower()}" for key, value in rules.to_overrides().items()
            )
            page = client.get(f"/rules?{query}&lang={lang}").text
            body = re.sub(r"<style>.*?</style>|<[^>]+>", " ", page, flags=re.S)
            words = set(re.findall(r"[^\W\d_]+", body.lower()))
            assert not words & ENGLISH, (query, words & ENGLISH)
            assert "{" not in body


# -- the roll-off and Common Hand ------------------------------------------------------------

# Each language's name for every hand, lowest first, as its sheet lists them.
HAND_NAMES = {
    "en": [
        "pair",
        "two pair",
        "three of a kind",
        "low straight",
        "high straight",
        "full house",
        "four of a kind",
        "five of a kind",
    ],
    "de": [
        "Paar",
        "zwei Paare",
        "Drilling",
        "kleine Straße",
        "große Straße",
        "Full House",
        "Vierling",
        "Fünfling",
    ],
    "es": [
        "pareja",
        "doble pareja",
        "trío",
        "escalera baja",
        "escalera alta",
        "full",
        "póquer",
        "repóquer",
    ],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_common_hand_sheet_lists_the_hands_in_order(lang: str) -> None:
    bidding = rules_sections(Rules.preset("common-hand"), lang)[1][1]
    listed = bidding[1]
    places = [
        listed.find(name + " (")
        if name + " (" in listed
        else listed.find(name + ";")
        if name + ";" in listed
        else listed.find(name + ".")
        for name in HAND_NAMES[lang]
    ]
    assert all(place >= 0 for place in places), (listed, places)
    assert places == sorted(places), listed
    sheet = rules_sheet(Rules.preset("common-hand"), lang)
    assert sheet != rules_sheet(Rules.preset("no-wilds"), lang)
    # no quantity talk: nothing is counted and there are no aces to switch to
    assert rules_sheet(Rules.preset("common-hand")).count("quantity") == 0


def test_the_common_hand_sheet_in_english() -> None:
    sections = dict(rules_sections(Rules.preset("common-hand")))
    assert sections["Bidding"][0].startswith("A bid names a poker hand")
    assert "full house 4s over 2s" in sections["Bidding"][0]
    assert sections["Bidding"][-1].startswith("No bid may name a hand that needs more dice")
    assert sections["Ones"] == [
        "Ones are an ordinary face, the lowest (a pair of 1s is the "
        "lowest hand), and they are not wild."
    ]
    assert "checked for the hand" in sections["Calling: Liar! (Dudo)"][0]
    assert sections["Calling: Liar! (Dudo)"][1] == (
        "If the dice contain the hand, the bid holds and the caller loses a die. If they do "
        "not, the bidder loses a die."
    )
    uncapped = dict(rules_sections(Rules.preset("common-hand", cap_at_dice_in_play=False)))
    assert uncapped["Bidding"][-1].startswith("Any hand may be bid")
    race = dict(rules_sections(Rules.preset("common-hand", format="points")))
    assert "penalty point" in race["Calling: Liar! (Dudo)"][1]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "Before the first round every player rolls two dice"),
        ("de", "Vor der ersten Runde würfelt jeder Spieler mit zwei Würfeln"),
        ("es", "Antes de la primera ronda cada jugador tira dos dados"),
    ],
)
def test_the_roll_off_is_on_the_dudo_sheet(lang: str, words: str) -> None:
    game = rules_sections(PRESETS["dudo"], lang)[0][1]
    assert game[-1].startswith(words)
    assert words not in rules_sheet(PRESETS["perudo"], lang)


def test_hand_words_in_three_languages() -> None:
    assert all(hand_words(hand) == hand.words() for hand in ALL_HANDS)
    full = Hand("full_house", (4, 2))
    assert [hand_words(full, lang) for lang in LANGUAGES] == [
        "full house 4s over 2s",
        "Full House 4er über 2er",
        "full de cuatros y doses",
    ]
    pair = Hand("pair", (1,))
    assert [hand_words(pair, lang) for lang in LANGUAGES] == [
        "pair of 1s",
        "Paar 1er",
        "pareja de unos",
    ]
    assert [hand_words(Hand("low_straight"), lang) for lang in LANGUAGES] == [
        "low straight",
        "kleine Straße",
        "escalera baja",
    ]
    assert len({hand_words(hand, "de") for hand in ALL_HANDS}) == len(ALL_HANDS)
    assert len({hand_words(hand, "es") for hand in ALL_HANDS}) == len(ALL_HANDS)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_printable_sheet_plays_a_common_hand_example(lang: str) -> None:
    with TestClient(make_app()) as client:
        page = client.get(f"/rules?preset=common-hand&lang={lang}")
        assert page.status_code == 200
        body = page.text
    for name in HAND_NAMES[lang][:3]:
        assert name in body
    assert hand_words(Hand("two_pair", (5, 2)), lang) in body  # the worked example's bid
    assert 'class="die counts"' in body  # the reveal marks the dice of the hand
    if lang == "en":  # the raises are the ones before the call, with all 15 dice in play
        assert "(15 dice in play)" in body and "57 legal bids in all" in body
