"""The browser client's files and the rules sheet, checked without a browser."""

from __future__ import annotations

import json
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from dudo.rules import PRESETS, Rules
from dudo.rules_text import LANGUAGES
from dudo.server.web.pages import RULES_STYLE, WEB, rules_query, worked_examples
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


def test_every_bot_level_has_a_voice_of_dozens_of_lines() -> None:
    """Bots with character (voice.js): each level's voice has at least 9 lines for each
    moment, 36 or more in all, in every language alike, none said twice."""
    levels = ("easy", "normal", "hard")
    moments = ("big_raise", "call", "lost", "win")
    counts: dict[str, dict[str, int]] = {}
    for path in LOCALES:
        strings = json.loads(path.read_text())
        counts[path.stem] = {}
        for level in levels:
            said: list[str] = []
            for moment in moments:
                lines = strings[f"voice.{level}.{moment}"].split("|")
                assert len(lines) >= 9 and all(line.strip() for line in lines), (
                    path.name,
                    level,
                    moment,
                )
                counts[path.stem][f"{level}.{moment}"] = len(lines)
                said += lines
            assert len(said) >= 36, (path.name, level, len(said))
            assert len(set(said)) == len(said), (path.name, level)
            assert not any("{" in line for line in said), (path.name, level)
    assert counts["de"] == counts["en"] == counts["es"], counts


def persona_key(name: str) -> str:
    """As voice.js personaKey: "Dr. Okafor 4" -> "dr_okafor"."""
    name = re.sub(r"\s+\d+$", "", name)
    name = "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def test_every_bot_persona_has_a_manner_of_its_own() -> None:
    """Each persona a bot seat can be named after has its own lines for every moment, in
    every language, none the same as another persona's or its level's."""
    from dudo.bots.registry import LEVELS

    assert persona_key("Dr. Okafor 4") == "dr_okafor" and persona_key("El Capitán") == "el_capitan"
    for path in LOCALES:
        strings = json.loads(path.read_text())
        seen: set[str] = set()
        for level in ("easy", "normal", "hard"):
            personas = LEVELS[level].personas
            assert len(personas) >= 3, level
            common = {
                line
                for moment in ("big_raise", "call", "lost", "win")
                for line in strings[f"voice.{level}.{moment}"].split("|")
            }
            for persona in personas:
                for moment in ("big_raise", "call", "lost", "win"):
                    key = f"voice.persona.{persona_key(persona.name)}.{moment}"
                    assert key in strings, (path.name, key)
                    lines = strings[key].split("|")
                    assert len(lines) >= 2 and all(line.strip() for line in lines), (path.name, key)
                    assert not set(lines) & common, (path.name, key, set(lines) & common)
                    assert not set(lines) & seen, (path.name, key, set(lines) & seen)
                    seen |= set(lines)


# Every way the server (and the profile desk) names an error code in its source: a room's
# or a profile's refusal, a message the socket cannot read, an error message sent on a
# socket, a refused handshake, and a JSON error answered directly.
CODE_IN_SOURCE = re.compile(
    r'(?:RoomError|ProtocolError|Refusal|error_message|refuse)\(\s*(?:websocket,\s*)?"([a-z_]+)"'
    r'|"error":\s*"([a-z_]+)"'
)


def test_every_server_error_code_is_translated() -> None:
    """The page shows refusals in its own language: a key err.<code> for every code the
    server or the engine can send (docs/protocol.md, "Error codes")."""
    from dudo.game import REASONS

    codes = set(REASONS)
    src = Path(__file__).resolve().parents[2] / "src" / "dudo"
    for source in [*(src / "server").rglob("*.py"), *(src / "profiles").rglob("*.py")]:
        text = source.read_text()
        codes |= {a or b for a, b in CODE_IN_SOURCE.findall(text)}
        # A transfer code refused: Refusal(f"code_{reason}") for each TransferRefused reason.
        codes |= {f"code_{why}" for why in re.findall(r'TransferRefused\("([a-z_]+)"\)', text)}
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    codes |= set(re.findall(r"^\| [0-9]{3} \| `([a-z_]+)`", protocol, re.MULTILINE))
    codes |= set(re.findall(r"^\| [0-9]{4} \| `([a-z_]+)`", protocol, re.MULTILINE))
    expected = {"not_a_raise", "not_ready", "locked", "full", "removed", "bad_origin"}
    expected |= {"bad_json", "bad_record", "too_many_profiles", "code_used", "internal"}
    assert expected <= codes, expected - codes
    for path in LOCALES:
        strings = json.loads(path.read_text())
        missing = {code for code in codes if f"err.{code}" not in strings}
        assert not missing, (path.name, missing)


def test_every_cause_of_a_refusal_has_a_sentence_in_every_language() -> None:
    """The page says why a bid or call was refused (refusal.js): a why.<key> for every key
    dudo.refusals gives, with no placeholder the engine's params do not fill."""
    from dudo.refusals import KEYS

    given = {"bid", "least", "face", "min", "alive", "seat", "name", "dice", "limit", "need"}
    for path in LOCALES:
        strings = json.loads(path.read_text())
        missing = {key for key in KEYS if f"why.{key}" not in strings}
        assert not missing, (path.name, missing)
        for key in KEYS:
            assert placeholders(strings[f"why.{key}"]) <= given, (path.name, key)


def test_grammar_that_was_wrong() -> None:
    """The second person is never built from a name: "Du muss", "Tú debe" cannot appear."""
    for path in LOCALES:
        text = path.read_text()
        assert "Du muss " not in text and "Tú debe " not in text, path.name
    english = json.loads((WEB / "locales" / "en.json").read_text())
    assert english["table.winner"] == {"one": "{names} wins!", "other": "{names} win!"}
    # A bid of several dice is plural in German ("drei 5er stimmen"): a verb right after
    # {bid} is singular only in a plural form's "one"; elsewhere the sentence says "das
    # Gebot {bid} stimmt", whose subject is the bid, whatever its quantity.
    german = json.loads((WEB / "locales" / "de.json").read_text())
    singular_after_bid = re.compile(r"(?<!Gebot ){bid} (stimmt|stimmte|ist|war)\b")
    for key, value in german.items():
        forms = value if isinstance(value, dict) else {"other": value}
        for form, text in forms.items():
            if form != "one":
                assert not singular_after_bid.search(text), (key, form, text)


# Every string that names the Liar call (the button, the felt, the log and the reveal, the
# keys, the replay and the refusals), and the rules sheet's.
CALL_NAMES = [
    "call.dudo",
    "call.dudo_shout",
    "call.dudo_button",
    "keys.liar",
    "picker.keys",
    "picker.keys_no_calza",
    "picker.keys_hand",
    "tip.liar",
    "tip.liar.poker",
    "rp.calls_liar",
    "rp.hard_liar",
    "rp.mistake.call_on_likely_bid",
    "why.calza_not_allowed.off",
    "why.not_your_turn.dudo",
]
SHEET_CALL_NAMES = ["h.dudo", "dudo.call.wild", "dudo.call.plain", "dudo.call.poker"]
OTHER_NAMES = {"en": [], "de": ["Lügner!"], "es": ["¡Mentiroso!", "¡Mentira!"]}


def test_the_call_has_one_name_in_each_language() -> None:
    """The visual audit found the call named five ways in English ("Liar!", "Liar!
    (Dudo)", "called Dudo", "calls Liar!", "Calling: dudo") and three in German and
    Spanish. Each language's button word (Liar!, Lüge!, ¡Dudo!) is now in every string that
    names the call, the rules sheet's too, and no other word for it is."""
    for path in LOCALES:
        strings = json.loads(path.read_text())
        sheet = json.loads((WEB.parent / "locales" / f"rules.{path.stem}.json").read_text())
        word = strings["call.dudo_main"]
        named = [(key, strings[key]) for key in CALL_NAMES]
        named += [(key, sheet[key]) for key in SHEET_CALL_NAMES]
        for key, text in named:
            assert word in text, (path.stem, key, text)
            for other in OTHER_NAMES[path.stem]:
                assert other not in text, (path.stem, key, text)


def test_every_string_the_client_asks_for_exists() -> None:
    english = json.loads((WEB / "locales" / "en.json").read_text())
    used: set[str] = set()
    for script in (WEB / "js").glob("*.js"):
        used |= set(re.findall(r"\bt\('([a-z_.]+)'", script.read_text()))
    used |= set(re.findall(r'data-i18n="([a-z_.]+)"', (WEB / "index.html").read_text()))
    assert used and not used - set(english), used - set(english)


def test_pages_and_static_files_are_served() -> None:
    with TestClient(make_app()) as client:
        for path in (
            "/",
            "/r/ACDE",
            "/static/js/app.js",
            "/static/css/dudo.css",
            "/static/locales/de.json",
            "/static/favicon.svg",
        ):
            assert client.get(path).status_code == 200, path
        assert 'type="module"' in client.get("/r/ACDE").text
        catalogue = client.get("/api/presets").json()
        assert set(catalogue["presets"]) == set(PRESETS)
        assert catalogue["options"]["calza"] == {
            "type": "choice",
            "choices": ["off", "in_turn", "any_time"],
        }


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
    for rules in (
        Rules.preset("no-wilds", starting_dice=1),
        Rules.preset("dudo", starting_dice=10),
        Rules.preset("perudo", format="points"),
    ):
        assert len(worked_examples(rules)) >= 2
    assert rules_query(Rules.preset("dudo", starting_dice=3)) == "preset=dudo&starting_dice=3"


def test_package_data_ships_the_web_client() -> None:
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    for folder in ("web/*", "web/js/*", "web/css/*", "web/locales/*"):
        assert f'"{folder}"' in text


def contrast(one: str, two: str) -> float:
    """WCAG contrast ratio of two #rrggbb (or #rgb) colours."""

    def luminance(colour: str) -> float:
        digits = colour.lstrip("#")
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_rules_sheet_links_meet_aaa_contrast() -> None:
    """Every link colour of the sheet on screen (visited ones too, which axe cannot see)
    reaches 7:1 on every background the sheet has: the cream page and the white embed."""
    screen = re.sub(r"/\*.*?\*/", "", RULES_STYLE.split("@media print")[0], flags=re.DOTALL)
    links: set[str] = set()
    backgrounds: set[str] = set()
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", screen):
        names = [name.strip() for name in selectors.split(",")]
        if any(re.fullmatch(r"a(:[a-z-]+)*", name) for name in names):
            links |= set(re.findall(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{3,6})", body))
        if any(name in (":root", "body", "body.embed") for name in names):
            backgrounds |= set(re.findall(r"background:\s*(#[0-9a-fA-F]{3,6})", body))
    assert links and len(backgrounds) >= 2, (links, backgrounds)
    for link in links:
        for background in backgrounds:
            assert contrast(link, background) >= 7, (link, background, contrast(link, background))


# Elements whose role (generic, paragraph, strong...) may not be named: aria-label on them
# is ignored by screen readers unless a role that takes a name (img, group...) is given.
UNNAMEABLE = {
    "span",
    "div",
    "p",
    "strong",
    "em",
    "b",
    "i",
    "u",
    "s",
    "small",
    "code",
    "bdi",
    "bdo",
    "del",
    "ins",
    "sub",
    "sup",
    "pre",
    "data",
    "q",
}


class AriaLabels(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []
        self.labelled = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if "aria-label" not in names:
            return
        self.labelled += 1
        if tag in UNNAMEABLE and not names.get("role"):
            self.bad.append(self.get_starttag_text() or tag)


def test_rules_sheet_puts_aria_label_only_where_it_is_read() -> None:
    """The worked examples' dice are read as "5 (counts)": role="img" makes the label count."""
    with TestClient(make_app()) as client:
        for lang in LANGUAGES:
            for query in ("preset=perudo", "preset=tavern&embed=1", "preset=dudo&starting_dice=1"):
                parser = AriaLabels()
                parser.feed(client.get(f"/rules?{query}&lang={lang}").text)
                assert parser.labelled > 3 and not parser.bad, (lang, query, parser.bad[:3])


def test_client_puts_aria_label_only_where_it_is_read() -> None:
    """The same in the client's markup: its HTML files and the templates in its modules."""
    # A tag up to its closing ">" (an arrow function's "=>" inside ${...} is not one).
    tag = re.compile(r"<(" + "|".join(UNNAMEABLE) + r")\b((?:=>|[^>])*)>")
    sources = [*(WEB / "js").glob("*.js"), *WEB.glob("*.html")]
    bad = []
    for source in sources:
        for name, attributes in tag.findall(source.read_text()):
            if "aria-label=" in attributes and "role=" not in attributes:
                bad.append((source.name, name, attributes[:80]))
    assert len(sources) > 10 and not bad, bad
