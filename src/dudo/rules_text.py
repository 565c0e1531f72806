"""The rules in plain words, written from the options themselves.

Every combination of house rules gets its own readable sheet, so a table never argues
about what its settings mean: ``dudo rules``, the server's rules page and the printed sheet
all come from :func:`rules_sections`.
"""

from __future__ import annotations

from dudo.rules import Rules

PRESET_TITLES = {
    "perudo": "Perudo (classic)",
    "dudo": "Dudo (the printable rules sheet)",
    "tavern": "Tavern (simple online rules)",
    "ones-lock": "Ones lock",
    "no-wilds": "No wilds (for beginners)",
}


def title(rules: Rules) -> str:
    """``Perudo (classic)``, or ``House rules (based on tavern)`` for a changed preset."""
    name = rules.preset_name
    if name is not None:
        return PRESET_TITLES[name]
    return f"House rules (based on {rules.to_overrides()['preset']})"


def rules_sections(rules: Rules) -> list[tuple[str, list[str]]]:
    """The rules as (heading, paragraphs) in the order a newcomer needs them."""
    sections = [
        ("The game", _the_game(rules)),
        ("Bidding", _bidding(rules)),
        ("Ones", _ones(rules)),
        ("Calling: dudo", _dudo(rules)),
    ]
    if rules.calza != "off":
        sections.append(("Calza: calling it exact", _calza(rules)))
    if rules.palifico and rules.format == "elimination":
        sections.append(("Palifico", _palifico(rules)))
    sections.append(("Winning", _winning(rules)))
    return sections


def rules_sheet(rules: Rules) -> str:
    """The whole sheet as plain text (what ``dudo rules`` prints)."""
    lines = [title(rules), "=" * len(title(rules)), ""]
    for heading, paragraphs in rules_sections(rules):
        lines += [heading, "-" * len(heading)]
        for paragraph in paragraphs:
            lines += [paragraph, ""]
    return "\n".join(lines).rstrip() + "\n"


def _dice(number: int) -> str:
    return "one die" if number == 1 else f"{number} dice"


def _players(number: int) -> str:
    return f"{number} players"


def _the_game(rules: Rules) -> list[str]:
    return [
        f"Every player starts with {_dice(rules.starting_dice)} under a cup. Each round, "
        "everyone rolls in secret and looks only at their own dice.",
        "Players take turns clockwise. On your turn you either raise the bid or call the "
        "standing bid a lie. There is no passing.",
        _first_opener(rules),
    ]


def _first_opener(rules: Rules) -> str:
    if rules.first_opener == "host":
        return "The host (the first seat) opens the first round."
    if rules.first_opener == "rotate":
        return ("The first round is opened by the player after the one who opened the "
                "first round of the previous game at this table.")
    return "Who opens the first round is drawn at random."


def _bidding(rules: Rules) -> list[str]:
    paragraphs = [
        "A bid names a quantity and a face, such as \"four 5s\": at least four dice showing "
        "5 under all the cups together, yours included.",
        "A raise is a higher quantity on any face, or the same quantity on a higher face: "
        "after \"three 4s\" you may say \"three 5s\" or \"four 2s\", but not \"three 3s\".",
    ]
    if rules.cap_at_dice_in_play:
        paragraphs.append("No bid may name more dice than there are in play.")
    else:
        paragraphs.append("A bid may name more dice than there are in play (it will lose "
                          "if called), up to twice the dice in play plus one.")
    return paragraphs


def _ones(rules: Rules) -> list[str]:
    wild = rules.wild_ones
    if rules.ones_bids == "halve":
        return [
            "Ones (aces) are wild: they count toward a bid on any other face.",
            "You may bid on aces, but not to open a round. When the bid is on aces, only "
            "aces count.",
            "Switching to aces: at least half the standing quantity, rounded up (\"eleven "
            "3s\" can become \"six aces\"). Switching back from aces: at least double the "
            "aces plus one (\"six aces\" can become \"thirteen 4s\"). From aces to aces, "
            "a higher quantity.",
        ]
    if rules.ones_bids == "never":
        if wild:
            return ["Ones are wild: they count toward a bid on any face. Nobody may bid "
                    "on ones."]
        return ["Ones count only as ones, and nobody may bid on them."]
    if rules.ones_bids == "lock":
        if wild:
            return ["Ones are the lowest face and may be bid like any other.",
                    "Ones are wild until someone bids on ones; from that bid until the end "
                    "of the round, ones count only as ones."]
        return ["Ones are the lowest face, bid like any other, and count only as ones."]
    if wild:
        return ["Ones are the lowest face and may be bid like any other. They are wild: "
                "they count toward a bid on any other face."]
    return ["Ones are an ordinary face, the lowest, and count only for bids on ones."]


def _loses(rules: Rules) -> str:
    if rules.format == "points":
        return "takes a penalty point"
    return "loses a die"


def _dudo(rules: Rules) -> list[str]:
    counted = ("the dice showing the bid face are counted, plus ones while they are wild"
               if rules.wild_ones else "the dice showing the bid face are counted")
    paragraphs = [
        f"Instead of raising, the player to act may call \"Dudo!\" (liar). Every cup is "
        f"lifted and {counted}.",
        f"If there are at least as many as the bid, the bid holds and the caller "
        f"{_loses(rules)} (an exact count included). If there are fewer, the bidder "
        f"{_loses(rules)}.",
    ]
    if rules.loss_by_difference:
        unit = "points" if rules.format == "points" else "dice"
        paragraphs.append(
            f"Loss by difference: the loser takes as many {unit} as the bid was off by, "
            "at least one (\"six 5s\" called with nine 5s on the table costs the caller "
            f"three {unit}).")
    paragraphs.append("The player who lost opens the next round"
                      + ("; if they are out, the next player clockwise opens."
                         if rules.format == "elimination" else "."))
    return paragraphs


def _calza(rules: Rules) -> list[str]:
    who = ("Only the player to act may call it, instead of raising or calling dudo."
           if rules.calza == "in_turn" else
           "Any player except the one who made the standing bid may call it, in turn or "
           "out of turn, until the next bid is made; the first call counts.")
    exact = ("If the count is exactly the bid, the caller's points do not change; if it is "
             "not, the caller takes a penalty point."
             if rules.format == "points" else
             f"If the count is exactly the bid, the caller wins back one die (never more "
             f"than {_dice(rules.starting_dice)}); if it is not, the caller loses a die.")
    limits = ["There is no calza while nobody has bid"]
    if rules.palifico and rules.format == "elimination":
        limits.append("in a palifico round")
    if rules.calza_min_players > 2:
        limits.append(f"when fewer than {_players(rules.calza_min_players)} are left")
    return [
        "Calza (\"spot on\"): a player claims the count is exactly the standing bid. "
        + who,
        exact + " Either way the caller opens the next round.",
        (", ".join(limits[:-1]) + " or " + limits[-1] if len(limits) > 1 else limits[0]) + ".",
    ]


def _palifico(rules: Rules) -> list[str]:
    trigger = "When a player drops to exactly one die, the next round is a palifico round"
    conditions = []
    if rules.palifico_once_per_player:
        conditions.append("only once per player in a game")
    if rules.palifico_min_players > 2:
        conditions.append(f"only while at least {_players(rules.palifico_min_players)} "
                          "are left")
    if conditions:
        trigger += " (" + "; ".join(conditions) + ")"
    face = ("The player on one die opens it and chooses the face"
            + (", aces included." if rules.palifico_open_on_ones and rules.ones_bids != "never"
               else ", which may not be ones."))
    paragraphs = [
        trigger + ".",
        face + " After that every raise keeps that face and raises the quantity.",
    ]
    if rules.palifico_one_die_may_change_face:
        paragraphs.append("A player who also has only one die may change the face, raising "
                          "in the ordinary way (ones as the lowest face); the new face is "
                          "then the one the others must keep.")
    paragraphs.append("Ones are not wild in a palifico round"
                      + (", and nobody may call calza." if rules.calza != "off" else "."))
    return paragraphs


def _winning(rules: Rules) -> list[str]:
    if rules.format == "points":
        return [
            f"Points race over {rules.points_rounds} round"
            f"{'s' if rules.points_rounds != 1 else ''}: nobody loses dice. Whoever would "
            "lose a die takes a penalty point instead.",
            "After the last round the fewest points win; tied players share the win.",
        ]
    return ["A player with no dice left is out. The last player with dice wins."]
