"""The rules in plain words, written from the options themselves.

Every combination of house rules gets its own readable sheet, so a table never argues
about what its settings mean: ``dudo rules``, the server's rules page and the printed sheet
all come from :func:`rules_sections`.

Every word comes from the locale files shipped in ``dudo/locales/rules.<lang>.json``
(English, German and Spanish, all with the same keys): templates with ``{named}``
placeholders, and a ``.one``/``.other`` pair wherever a number changes the wording.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from dudo.hands import CATEGORIES, Hand
from dudo.rules import PRESETS, Rules

LANGUAGES = ("en", "de", "es")
DEFAULT_LANGUAGE = "en"


@cache
def strings(lang: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """The rules-sheet strings of one language (raises ValueError for an unknown one)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    source = resources.files("dudo").joinpath("locales", f"rules.{lang}.json")
    loaded = json.loads(source.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"rules.{lang}.json is not an object")
    return {str(key): str(value) for key, value in loaded.items()}


def text(lang: str, key: str, **params: object) -> str:
    """The template ``key`` in ``lang`` with its ``{placeholders}`` filled in."""
    return strings(lang)[key].format(**params)


def plural(lang: str, key: str, n: int, **params: object) -> str:
    """``key.one`` for one, else ``key.other``; ``{n}`` is filled in with the number."""
    return text(lang, f"{key}.{'one' if n == 1 else 'other'}", n=n, **params)


def preset_title(name: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """A preset's display name, e.g. ``Perudo (classic)``."""
    key = f"preset.{name}"
    return text(lang, key) if key in strings(lang) else name


PRESET_TITLES = {name: preset_title(name) for name in PRESETS}


def title(rules: Rules, lang: str = DEFAULT_LANGUAGE) -> str:
    """``Perudo (classic)``, or ``House rules (based on Tavern)`` for a changed preset."""
    name = rules.preset_name
    if name is not None:
        return preset_title(name, lang)
    base = preset_title(rules.to_overrides()["preset"], lang).split(" (")[0]  # "Tavern"
    return text(lang, "title.house", preset=base)


def bid_words(quantity: int, face: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """A bid as a player says it: ``four 5s`` / ``vier 5er`` / ``cuatro cincos``."""
    table = strings(lang)
    number = table.get(f"num.{quantity}", str(quantity))
    form = "one" if quantity == 1 else "many"
    if face == 1:
        name = table["face.ace" if quantity == 1 else "face.aces"]
    else:
        name = table[f"face.{form}.{face}"]
    return text(lang, "bid.words", quantity=number, face=name)


def hand_words(hand: Hand, lang: str = DEFAULT_LANGUAGE) -> str:
    """A poker hand as a player says it: ``full house 4s over 2s`` / ``Full House 4er über
    2er`` / ``full de cuatros y doses`` (English is :meth:`Hand.words`)."""
    table = strings(lang)

    def face(number: int) -> str:
        return table["hand.face.1"] if number == 1 else table[f"face.many.{number}"]

    faces = [face(number) for number in hand.faces]
    if len(faces) == 2:
        return text(lang, f"hand.{hand.category}", high=faces[0], low=faces[1])
    if len(faces) == 1:
        return text(lang, f"hand.{hand.category}", face=faces[0])
    return text(lang, f"hand.{hand.category}")


def rules_sections(rules: Rules, lang: str = DEFAULT_LANGUAGE) -> list[tuple[str, list[str]]]:
    """The rules as (heading, paragraphs) in the order a newcomer needs them."""
    t = _Words(lang)
    sections = [
        (t("h.game"), _the_game(rules, t)),
        (t("h.bidding"), _bidding(rules, t)),
        (t("h.ones"), _ones(rules, t)),
        (t("h.dudo"), _dudo(rules, t)),
    ]
    if rules.calza != "off":
        sections.append((t("h.calza"), _calza(rules, t)))
    if rules.palifico and rules.format == "elimination":
        sections.append((t("h.palifico"), _palifico(rules, t)))
    sections.append((t("h.winning"), _winning(rules, t)))
    return sections


def rules_sheet(rules: Rules, lang: str = DEFAULT_LANGUAGE) -> str:
    """The whole sheet as plain text (what ``dudo rules`` prints)."""
    heading = title(rules, lang)
    lines = [heading, "=" * len(heading), ""]
    for section, paragraphs in rules_sections(rules, lang):
        lines += [section, "-" * len(section)]
        for paragraph in paragraphs:
            lines += [paragraph, ""]
    return "\n".join(lines).rstrip() + "\n"


class _Words:
    """``t("key", name=value)`` for one language, with ``t.plural`` for counted wording."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        strings(lang)  # fail early on an unknown language

    def __call__(self, key: str, **params: object) -> str:
        return text(self.lang, key, **params)

    def plural(self, key: str, n: int, **params: object) -> str:
        return plural(self.lang, key, n, **params)


def _the_game(rules: Rules, t: _Words) -> list[str]:
    return [
        t.plural("game.start", rules.starting_dice),
        t("game.turns"),
        t(f"opener.{rules.first_opener}"),
    ]


def _bidding(rules: Rules, t: _Words) -> list[str]:
    if rules.bids == "poker":
        hands = t("bidding.poker.hands.sep").join(t(f"hand.list.{name}") for name in CATEGORIES)
        cap = "bidding.poker.cap" if rules.cap_at_dice_in_play else "bidding.poker.nocap"
        return [
            t("bidding.poker.what"),
            t("bidding.poker.hands", list=hands),
            t("bidding.poker.raise"),
            t(cap),
        ]
    if rules.cap_at_dice_in_play:
        cap = "bidding.cap"
    else:  # the bound on aces only matters where aces may be bid
        cap = "bidding.nocap.never" if rules.ones_bids == "never" else "bidding.nocap"
    return [t("bidding.what"), t("bidding.raise"), t(cap)]


def _ones(rules: Rules, t: _Words) -> list[str]:
    if rules.bids == "poker":  # docs/rules-spec.md: poker bids need plain, not wild ones
        return [t("ones.poker")]
    wild = rules.wild_ones
    kind = "wild" if wild else "plain"
    if rules.ones_bids == "halve":
        return [t("ones.halve.wild"), t("ones.halve.bid"), t("ones.halve.switch")]
    if rules.ones_bids == "lock" and wild:
        return [t("ones.lock.wild"), t("ones.lock.wild.until")]
    return [t(f"ones.{rules.ones_bids}.{kind}")]


def _dudo(rules: Rules, t: _Words) -> list[str]:
    unit = "points" if rules.format == "points" else "dice"
    if rules.bids == "poker":  # no count and no loss by difference (docs/rules-spec.md)
        return [
            t("dudo.call.poker"),
            t(f"dudo.outcome.poker.{unit}"),
            t(f"dudo.next.{rules.format}"),
        ]
    paragraphs = [
        t("dudo.call.wild" if rules.wild_ones else "dudo.call.plain"),
        t(f"dudo.outcome.{unit}"),
    ]
    if rules.loss_by_difference:
        paragraphs.append(t(f"dudo.difference.{unit}"))
    paragraphs.append(t(f"dudo.next.{rules.format}"))
    return paragraphs


def _calza(rules: Rules, t: _Words) -> list[str]:
    exact = (
        t("calza.exact.points")
        if rules.format == "points"
        else t.plural("calza.exact.dice", rules.starting_dice)
    )
    limits = [t("calza.limit.nobid")]
    if rules.palifico and rules.format == "elimination":
        limits.append(t("calza.limit.palifico"))
    if rules.calza_min_players > 2:
        limits.append(t("calza.limit.players", n=rules.calza_min_players))
    listed = (
        t("calza.limit.sep").join(limits[:-1]) + t("calza.limit.last") + limits[-1]
        if len(limits) > 1
        else limits[0]
    )
    return [
        t("calza.intro", who=t(f"calza.who.{rules.calza}")),
        exact,
        listed + ".",
    ]


def _palifico(rules: Rules, t: _Words) -> list[str]:
    conditions = []
    if rules.palifico_once_per_player:
        conditions.append(t("palifico.cond.once"))
    if rules.palifico_min_players > 2:
        conditions.append(t("palifico.cond.players", n=rules.palifico_min_players))
    wrapped = (
        t("palifico.conditions", list=t("palifico.cond.sep").join(conditions)) if conditions else ""
    )
    # ``never`` wins over both palifico options (docs/rules-spec.md), and the sheet says so where a
    # reader of the options alone would expect aces.
    never = rules.ones_bids == "never"
    if never:
        face = "palifico.face.never"
    else:
        face = "palifico.face.aces" if rules.palifico_open_on_ones else "palifico.face.noaces"
    paragraphs = [t("palifico.trigger", conditions=wrapped), t(face)]
    if rules.palifico_one_die_may_change_face:
        paragraphs.append(t("palifico.change.never" if never else "palifico.change"))
    paragraphs.append(t("palifico.nowild.calza" if rules.calza != "off" else "palifico.nowild"))
    return paragraphs


def _winning(rules: Rules, t: _Words) -> list[str]:
    if rules.format == "points":
        return [t.plural("winning.points", rules.points_rounds), t("winning.points.end")]
    return [t("winning.elimination")]
