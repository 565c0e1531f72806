"""The pages a browser gets: the client's HTML shell, its static files, the rules sheet.

The browser client itself lives in ``dudo/web/`` as plain ES modules, CSS and SVG, served
as they are (no build step). Pages hold no game logic: the client renders what the
WebSocket sends, and the rules sheet's worked examples are played by the engine itself.
"""

from __future__ import annotations

import base64
import hashlib
import html
from dataclasses import fields
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from dudo import __version__
from dudo.bids import Bid
from dudo.dice import ScriptedDice
from dudo.game import DUDO, Game, Revealed
from dudo.hands import Hand
from dudo.rules import _CHOICES, _INT_RANGES, PRESETS, Rules, RulesError
from dudo.rules_text import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    PRESET_TITLES,
    bid_words,
    hand_words,
    plural,
    preset_title,
    rules_sections,
    strings,
    text,
    title,
)
from dudo.server.web.assets import static_tree

WEB = Path(__file__).resolve().parents[2] / "web"

# A fixed table for the worked examples: the same dice every time the sheet is drawn.
_EXAMPLE_DICE = (1, 5, 5, 2, 3, 6, 4, 5, 1, 2, 3, 3, 6, 5, 4, 2, 1, 6, 5, 3, 4, 4, 2, 6)


def query_rules(request: Request) -> Rules:
    """Rules from ``?preset=...&option=value`` (raises RulesError for bad ones)."""
    options: dict[str, Any] = {}
    for key, value in request.query_params.items():
        if key in ("embed", "lang"):
            continue
        options[key] = _query_value(key, value)
    return Rules.from_json(options)


def _option_kind(name: str) -> str:
    """What values a Rules option takes, as the rules check them: ``int``, ``choice``
    (one of some words) or ``bool``."""
    if name in _INT_RANGES:
        return "int"
    if name in _CHOICES:
        return "choice"
    return "bool"


_OPTION_KINDS = {field.name: _option_kind(field.name) for field in fields(Rules)}


def _query_value(option: str, value: str) -> Any:
    """The text of ``option=value`` as the type the option has: ``calza=off`` is the
    choice "off" and ``palifico=off`` is false. Text an option cannot take stays text
    (and so do ``preset`` and unknown options), for the rules to refuse by name."""
    kind = _OPTION_KINDS.get(option)
    if kind == "bool":
        lowered = value.lower()
        if lowered in ("true", "yes", "on"):
            return True
        if lowered in ("false", "no", "off"):
            return False
    elif kind == "int":
        # ASCII digits only ("²" is a digit to str.isdigit but not to int), and few of them
        # (int() refuses thousands).
        digits = value.lstrip("0") or "0"
        if value.isascii() and value.isdigit() and len(digits) <= 18:
            return int(digits)
    return value


def embed_requested(query: QueryParams) -> bool:
    """``?embed=1``: the rules sheet without navigation, for an iframe on any site."""
    return query.get("embed") in ("1", "true", "yes")


def rules_query(rules: Rules) -> str:
    """The shortest ``/rules?...`` query for ``rules`` (a preset and what differs)."""
    return urlencode(
        {
            key: str(value).lower() if isinstance(value, bool) else value
            for key, value in rules.to_overrides().items()
        }
    )


async def home(request: Request) -> Response:
    """The home page and a room's table (``/r/{code}``): one shell, never cached unchecked,
    whose URLs name this version of the client (dudo.server.web.assets)."""
    if (WEB / "index.html").is_file():
        return static_tree(WEB).page("index.html", request)
    return HTMLResponse(PLACEHOLDER_PAGE.format(version=__version__))


async def game_page(request: Request) -> Response:
    """A finished game's page (``/g/{game_id}``) and the list of this browser's games
    (``/my-games``): one static shell; its modules fetch the record and its analysis."""
    return static_tree(WEB).page("game.html", request)


async def presets(request: Request) -> Response:
    """The presets and the options a room can change, for the create-a-room form."""
    options: dict[str, dict[str, Any]] = {}
    for name, kind in _OPTION_KINDS.items():
        if kind == "int":
            low, high = _INT_RANGES[name]
            options[name] = {"type": "int", "min": low, "max": high}
        elif kind == "choice":
            options[name] = {"type": "choice", "choices": list(_CHOICES[name])}
        else:
            options[name] = {"type": "bool"}
    return JSONResponse(
        {
            "presets": {
                name: {"title": PRESET_TITLES.get(name, name), "rules": rules.to_json()}
                for name, rules in PRESETS.items()
            },
            "options": options,
        }
    )


# -- worked examples, played by the engine -----------------------------------------------


def _example_table(rules: Rules) -> tuple[int, list[int], tuple[tuple[int, ...], ...]]:
    players = 3
    counts = [rules.starting_dice] * players
    dice = list(_EXAMPLE_DICE) * (1 + sum(counts) // len(_EXAMPLE_DICE))
    cups, start = [], 0
    for count in counts:
        cups.append(tuple(dice[start : start + count]))
        start += count
    return players, counts, tuple(cups)


def _fresh_game(rules: Rules) -> tuple[Game, tuple[tuple[int, ...], ...]]:
    players, counts, cups = _example_table(rules)
    game = Game(rules, players, dice=ScriptedDice([cups]), dice_counts=counts, opener=0)
    game.roll()
    return game, cups


def _sample_bid(game: Game) -> Bid:
    """A middling opening bid on fives (or the nearest legal one)."""
    wanted = Bid(max(1, game.dice_in_play // 3), 5)
    bids = game.legal_actions(0).bids
    if wanted in bids:
        return wanted
    return bids[len(bids) // 3]


def _dice_html(cup: tuple[int, ...], lang: str, counted: Revealed | None = None) -> str:
    parts = []
    for die in cup:
        counts = counted is not None and counted.counts(die)
        mark = " counts" if counts else ""
        label = text(lang, "example.counts", face=die) if counts else str(die)
        # role="img": a screen reader ignores aria-label on a plain span (and reads "5"
        # where the sheet means "5 (counts)").
        parts.append(
            f'<span class="die{mark}" role="img" aria-label="{html.escape(label)}">{die}</span>'
        )
    return "".join(parts)


def _html(lang: str, key: str, markup: dict[str, str] | None = None, **plain: object) -> str:
    """A translated sentence as HTML: the template and ``plain`` values are escaped,
    ``markup`` values (already HTML) go in as they are."""
    template = html.escape(strings(lang)[key], quote=False)
    values = {name: html.escape(str(value)) for name, value in plain.items()}
    return template.format(**values, **(markup or {}))


def _words(bid: Bid, lang: str) -> str:
    return html.escape(bid_words(bid.quantity, bid.face, lang))


def _strong(bid: Bid, lang: str) -> str:
    return f"<strong>{_words(bid, lang)}</strong>"


def _poker_examples(rules: Rules, lang: str) -> list[tuple[str, str]]:
    """Common Hand's worked examples: a call on a hand, and the lowest raises over it."""
    game, cups = _fresh_game(rules)
    hands = game.legal_actions(0).hands
    hand = Hand("two_pair", (5, 2))
    if hand not in hands:
        hand = hands[len(hands) // 3]
    strong = f"<strong>{html.escape(hand_words(hand, lang))}</strong>"
    game.apply(0, hand)
    raises = list(game.legal_actions(1).hands)
    in_play = game.dice_in_play  # before the call costs someone a die
    reveal = next(event for event in game.apply(1, DUDO) if isinstance(event, Revealed))
    rows = "".join(
        f"<tr><th scope=row>{_html(lang, 'example.player', n=seat + 1)}</th>"
        f"<td>{_dice_html(cup, lang, reveal)}</td></tr>"
        for seat, cup in enumerate(cups)
    )
    side = "holds" if reveal.outcome == "holds" else "fails"
    verdict = (
        text(lang, f"example.{side}.points")
        if rules.format == "points"
        else plural(lang, f"example.{side}.dice", reveal.change)
    )
    setup = _html(
        lang,
        "example.call.setup." + ("one" if rules.starting_dice == 1 else "other"),
        {"bid": strong},
        n=rules.starting_dice,
    )
    found = _html(lang, f"example.poker.{side}", {"hand": strong})
    lowest = html.escape(text(lang, "example.raises.sep")).join(
        html.escape(hand_words(raised, lang)) for raised in raises[:6]
    )
    return [
        (
            text(lang, "example.call.title"),
            f"<p>{setup}</p><table class=cups>{rows}</table><p>{found} {html.escape(verdict)}</p>",
        ),
        (
            text(lang, "example.raises.title"),
            "<p>"
            + _html(
                lang,
                "example.raises",
                {"bid": strong, "list": lowest},
                dice=in_play,
                more="…" if len(raises) > 6 else "",
                count=len(raises),
            )
            + "</p>",
        ),
    ]


def worked_examples(rules: Rules, lang: str = DEFAULT_LANGUAGE) -> list[tuple[str, str]]:
    """(heading, HTML) examples computed by playing the engine under ``rules``."""
    if rules.bids == "poker":
        return _poker_examples(rules, lang)
    examples: list[tuple[str, str]] = []
    # 1. A call and the count at the reveal.
    game, cups = _fresh_game(rules)
    bid = _sample_bid(game)
    game.apply(0, bid)
    events = game.apply(1, DUDO)
    reveal = next(event for event in events if isinstance(event, Revealed))
    rows = "".join(
        f"<tr><th scope=row>{_html(lang, 'example.player', n=seat + 1)}</th>"
        f"<td>{_dice_html(cup, lang, reveal)}</td></tr>"
        for seat, cup in enumerate(cups)
    )
    counted = (
        text(lang, "example.counted.face", face=bid.face)
        if bid.face != 1
        else text(lang, "example.counted.aces")
    )
    if reveal.wild and bid.face != 1:
        counted = text(lang, "example.counted.wild", counted=counted)
    side = "holds" if reveal.outcome == "holds" else "fails"
    verdict = (
        text(lang, f"example.{side}.points")
        if rules.format == "points"
        else plural(lang, f"example.{side}.dice", reveal.change)
    )
    setup = _html(
        lang,
        "example.call.setup." + ("one" if rules.starting_dice == 1 else "other"),
        {"bid": _strong(bid, lang)},
        n=rules.starting_dice,
    )
    count = _html(
        lang,
        "example.call.count",
        {"count": f"<strong>{reveal.count}</strong>"},
        counted=counted,
        quantity=bid.quantity,
    )
    examples.append(
        (
            text(lang, "example.call.title"),
            (
                f"<p>{setup}</p><table class=cups>{rows}</table>"
                f"<p>{count} {html.escape(verdict)}</p>"
            ),
        )
    )
    # 2. The lowest raises after a sample bid.
    game, _ = _fresh_game(rules)
    game.apply(0, bid)
    raises = list(game.legal_actions(1).bids)
    lowest = html.escape(text(lang, "example.raises.sep")).join(_words(b, lang) for b in raises[:6])
    examples.append(
        (
            text(lang, "example.raises.title"),
            "<p>"
            + _html(
                lang,
                "example.raises",
                {"bid": _strong(bid, lang), "list": lowest},
                dice=game.dice_in_play,
                more="…" if len(raises) > 6 else "",
                count=len(raises),
            )
            + "</p>",
        )
    )
    # 3. Switching to and from aces.
    aces = [b for b in raises if b.face == 1]
    if aces and rules.ones_bids == "halve":
        to_aces = aces[0]
        game.apply(1, to_aces)
        back = [b for b in game.legal_actions(2).bids if b.face == 4]
        body = _html(
            lang, "example.switch.to", {"bid": _strong(bid, lang), "aces": _strong(to_aces, lang)}
        )
        if back:
            body += " " + _html(
                lang,
                "example.switch.back",
                {"aces": _words(to_aces, lang), "back": _strong(back[0], lang)},
            )
        examples.append((text(lang, "example.switch.title"), f"<p>{body}</p>"))
    elif aces:
        examples.append(
            (
                text(lang, "example.aces.title"),
                "<p>"
                + _html(
                    lang, "example.aces", {"bid": _words(bid, lang), "aces": _strong(aces[0], lang)}
                )
                + "</p>",
            )
        )
    return examples


def page_language(request: Request) -> str:
    """``?lang=`` if it names a language we have, else the best of Accept-Language, else
    English."""
    asked = request.query_params.get("lang", "").lower()
    if asked in LANGUAGES:
        return asked
    ranked: list[tuple[float, int, str]] = []
    for index, item in enumerate(request.headers.get("accept-language", "").split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        base = tag.strip().lower()[:2]
        if base in LANGUAGES and quality > 0:
            ranked.append((-quality, index, base))
    return min(ranked)[2] if ranked else DEFAULT_LANGUAGE


def _option_value(lang: str, value: object) -> str:
    key = f"value.{str(value).lower()}"
    return text(lang, key) if key in strings(lang) else str(value)


async def rules_page(request: Request) -> Response:
    lang = page_language(request)
    try:
        rules = query_rules(request)
    except RulesError as error:
        return HTMLResponse(
            RULES_ERROR.format(
                lang=lang,
                error=html.escape(str(error)),
                heading=html.escape(text(lang, "page.error.title")),
                back=html.escape(text(lang, "page.error.back")),
            ),
            status_code=400,
        )
    embed = embed_requested(request.query_params)
    explicit = request.query_params.get("lang", "").lower() in LANGUAGES

    def t(key: str, **params: object) -> str:
        return html.escape(text(lang, key, **params))

    heading = html.escape(title(rules, lang))
    parts = [f"<h1>{heading}</h1>"]
    changed = {key: value for key, value in rules.to_overrides().items() if key != "preset"}
    if changed:
        listed = ", ".join(
            f"{text(lang, f'opt.{key}')}: {_option_value(lang, value)}"
            for key, value in changed.items()
        )
        parts.append(f"<p class=note>{t('page.changed', list=listed)}</p>")
    for section, paragraphs in rules_sections(rules, lang):
        parts.append(f"<section><h2>{html.escape(section)}</h2>")
        parts.extend(f"<p>{html.escape(paragraph)}</p>" for paragraph in paragraphs)
        parts.append("</section>")
    parts.append(
        f"<section class=examples><h2>{t('page.worked')}</h2>"
        f"<p class=note>{t('page.worked.note')}</p>"
    )
    for section, body in worked_examples(rules, lang):
        parts.append(f"<h3>{html.escape(section)}</h3>{body}")
    parts.append("</section>")
    query = rules_query(rules)
    keep_lang = f"&lang={lang}" if explicit else ""
    link = html.escape(f"/rules?{query}{keep_lang}")
    target = ' target="_parent"' if embed else ""
    footer = (
        f'<footer><a href="{link}"{target}>{t("page.link")}</a> · '
        f'<a href="{link}&amp;embed=1"{target}>{t("page.embed")}</a>'
        + (
            ""
            if embed
            else f' · <a href="/">{t("page.play")}</a> · '
            f"<button type=button data-print>{t('page.print')}</button>"
        )
        + "</footer>"
    )
    switch_query = query + ("&embed=1" if embed else "")
    languages = " · ".join(
        f"<strong>{html.escape(text(code, 'lang.name'))}</strong>"
        if code == lang
        else f'<a href="{html.escape(f"/rules?{switch_query}&lang={code}")}" hreflang="{code}" '
        f'lang="{code}">{html.escape(text(code, "lang.name"))}</a>'
        for code in LANGUAGES
    )
    nav = f'<nav aria-label="{t("page.language")}">{t("page.language")}: {languages}</nav>'
    if not embed:
        nav = (
            f'<nav aria-label="{t("page.presets")}">{t("page.presets")}: '
            + " · ".join(
                f'<a href="/rules?preset={name}{keep_lang}">{html.escape(preset_title(name, lang))}'
                "</a>"
                for name in PRESETS
            )
            + "</nav>"
            + nav
        )
    # The sheet's own header, with the way back to the game (not in an embed: its page
    # has a header of its own).
    head = (
        ""
        if embed
        else '<header class=sheet-head><a class=brand href="/">dudo</a>'
        f'<a href="/" class=back>{t("page.back")}</a></header>'
    )
    page = RULES_PAGE.format(
        lang=lang,
        title=t("page.title", title=title(rules, lang)),
        body="".join(parts),
        footer=footer,
        nav=nav,
        head=head,
        embed=" embed" if embed else "",
    )
    return HTMLResponse(page)


async def rules_script(request: Request) -> Response:
    return Response(
        RULES_SCRIPT,
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=3600"},
    )


def error_page(message: str, heading: str = "That did not work") -> str:
    """A plain page for a browser that went somewhere it should not (not found...)."""
    return ERROR_PAGE.format(heading=html.escape(heading), message=html.escape(message))


def page_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = [
        Route("/", home),
        Route("/r/{code}", home),
        Route("/g/{game_id}", game_page),
        Route("/my-games", game_page),
        Route("/rules", rules_page),
        # The print button's script is a file: the content security policy
        # (dudo.server.web.middleware) allows no inline script.
        Route("/rules.js", rules_script),
        Route("/api/presets", presets),
    ]
    if WEB.is_dir():
        # The client's files, read and compressed once (dudo.server.web.assets).
        routes.append(Route("/static/{path:path}", static_tree(WEB).serve, name="static"))
    return routes


RULES_STYLE = """
/* On screen the app's own type (its pages' font stack); on paper a serif body, below. */
:root { --sans: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1b1b1b; background: #fbfaf6; font-family: var(--sans); }
body { max-width: 44rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; line-height: 1.55; }
body.embed { padding: .5rem; max-width: none; background: #fff; }
h1 { font-family: var(--sans); color: #14532d; margin: .5rem 0; }
h2 { font-family: var(--sans); font-size: 1.15rem; color: #14532d;
  border-bottom: 2px solid #d6d3d1; padding-bottom: .15rem; margin-top: 1.4rem; }
h3 { font-family: var(--sans); font-size: 1rem; margin-bottom: .2rem; }
/* Links at AAA contrast (7:1) on the cream page and the white embed: #1e3a8a is 9.9:1
   and 10.4:1, a visited link's #581c87 10.4:1 and 10.9:1. */
a { color: #1e3a8a; }
a:visited { color: #581c87; }
nav, footer { font-family: var(--sans); font-size: .9rem; margin: .75rem 0; }
.sheet-head { display: flex; justify-content: space-between; align-items: center; gap: 1rem;
  font-family: var(--sans); border-bottom: 2px solid #14532d; padding: .3rem 0 .5rem; }
.sheet-head .brand { font-weight: 800; font-size: 1.3rem; color: #14532d; text-decoration: none; }
.note { color: #4a4a4a; font-style: italic; }
.cups { border-collapse: collapse; margin: .4rem 0; }
.cups th { text-align: left; padding: .2rem .6rem .2rem 0; font-family: var(--sans);
  font-weight: 600; }
.die { display: inline-grid; place-items: center; width: 1.7rem; height: 1.7rem; margin: 1px;
  border: 2px solid #1b1b1b; border-radius: 6px; font: 700 1rem var(--sans);
  background: #fff; }
.die.counts { background: #fde68a; border-width: 3px; text-decoration: underline; }
button { font: inherit; padding: .2rem .6rem; }
/* On a touch screen the head's links and the print button are finger-sized (40 px). */
@media (pointer: coarse) {
  .sheet-head a, button { display: inline-flex; align-items: center; min-height: 40px; }
}
/* A big screen (2560 px and up) and a TV at 1x (3840): the type grows as on the app's pages. */
@media screen and (min-width: 2200px) { :root { font-size: 125%; } }
@media screen and (min-width: 3200px) { :root { font-size: 187.5%; } }
@media print {
  :root { background: #fff; font-family: Georgia, "Times New Roman", serif; }
  body { max-width: none; padding: 0; font-size: 11pt; }
  nav, footer, .sheet-head { display: none; }
  h2 { break-after: avoid; }
  section, .cups { break-inside: avoid; }
  a, a:visited { color: inherit; text-decoration: none; }
  .die.counts { background: #ddd; }
}
"""

# The sheet's one <style> element (on its error pages too), allowed by its hash in the
# content security policy: the sheet stays one self-contained file to print or save.
STYLE_HASH = "'sha256-{}'".format(
    base64.b64encode(hashlib.sha256(RULES_STYLE.encode("utf-8")).digest()).decode("ascii")
)
_STYLE_ELEMENT = "<style>" + RULES_STYLE.replace("{", "{{").replace("}", "}}") + "</style>"
_ICON = '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'

RULES_SCRIPT = """\
for (const button of document.querySelectorAll('[data-print]')) {
  button.addEventListener('click', () => window.print());
}
"""

RULES_PAGE = (
    """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<script src="/rules.js" defer></script>"""
    + _ICON
    + _STYLE_ELEMENT
    + """</head>
<body class="rules{embed}">{head}<main>{nav}{body}{footer}</main></body></html>
"""
)

RULES_ERROR = (
    """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{heading}</title>
"""
    + _ICON
    + _STYLE_ELEMENT
    + """</head>
<body><main><h1>{heading}</h1><p>{error}</p>
<p><a href="/rules?lang={lang}">{back}</a></p></main></body></html>
"""
)

ERROR_PAGE = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{heading}</title>
"""
    + _ICON
    + _STYLE_ELEMENT
    + """</head>
<body><main><h1>{heading}</h1><p>{message}</p>
<p><a href="/">dudo</a> · <a href="/rules">The rules</a></p></main></body></html>
"""
)

PLACEHOLDER_PAGE = (
    """<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>dudo</title>"""
    + _STYLE_ELEMENT
    + """
<body>
<h1>dudo</h1>
<p>Liar's Dice for friends and programs. This server (version {version}) speaks the dudo
WebSocket protocol; the browser table is on its way. Meanwhile play in a terminal with
<code>dudo play</code>, or seat a program with the Python client (<code>dudo.client</code>).</p>
<p><a href="/rules">The rules</a> · <a href="/healthz">health</a></p>
</body></html>
"""
)
