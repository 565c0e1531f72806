"""The terminal game: one person against bots, drawn with Rich.

Everything the player sees comes from the engine's view of their seat, and everything they
type goes through the engine's legality check, so the terminal never decides a rule. Input
is read line by line from any callable, which is how the tests drive a whole game.

With ``first_opener: rolloff`` (the ``dudo`` preset) the roll-off that decided who opens
round 1 gets a screen of its own first: each attempt's two dice per player, who tied, who
opens. With ``bids: poker`` (Common Hand) bids are poker hands typed in words, such as
``full house 4s over 2s``, ``pair of 3s`` or ``low straight`` (:meth:`Hand.parse`).

The screen reads like a table at 80x24: each turn of the player's starts a fresh screen
(cleared on a terminal, a rule in a log) with the round, the last round's outcome, the
players, the bids and the player's dice, drawn once; so does each out-of-turn calza
question. After a call the reveal gets a screen of its own, with the round's bids (a round
the player had no turn in is seen there), and stays until the player goes on (Enter, or a
pause the caller sets). Lines wrap between words, never inside a name
(:mod:`dudo.tui_wrap`); the cups are laid out by :mod:`dudo.tui_reveal`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

from rich import box
from rich.console import Console, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dudo.bids import BadBidText, Bid
from dudo.bots.base import Bot
from dudo.bots.table import ask, out_of_turn_seats
from dudo.game import (
    CALZA,
    DUDO,
    Action,
    BidPlaced,
    Event,
    Game,
    GameOver,
    Phase,
    PlayerOut,
    Revealed,
)
from dudo.hands import BadHandText, Hand
from dudo.printable import MOST_QUOTED, clipped, printable
from dudo.refusals import HANDS_WITH_AN_ARTICLE, explain, in_words
from dudo.rules_text import rules_sheet
from dudo.tui_reveal import cup_rows
from dudo.tui_screen import ROOM_BELOW, dice_in_a_line, first_that_fits, heading, height
from dudo.tui_wrap import KeepWhole
from dudo.view import SeatView, view

PIPS = {
    1: ("     ", "  ●  ", "     "),
    2: ("●    ", "     ", "    ●"),
    3: ("●    ", "  ●  ", "    ●"),
    4: ("●   ●", "     ", "●   ●"),
    5: ("●   ●", "  ●  ", "●   ●"),
    6: ("●   ●", "●   ●", "●   ●"),
}
DIE_WIDTH = 8
"""Columns one drawn die takes: seven for the box and one space."""
EXAMPLE_BID = Bid(4, 5)
"""The help's example bid, wherever the player may bid it: see :meth:`TerminalGame.example`."""


def bids_help(example: Bid) -> str:
    """The help line's start (Rich markup): how to type a bid, shown with ``example`` both
    ways it may be typed and in words, and how to call the standing bid."""
    typed = f"{example.quantity} {example.face}s"
    return (
        f"Type a bid like [bold]{typed}[/] or [bold]{example}[/] ({example.words()}), "
        "[bold]dudo[/] (or [bold]liar[/]) to call the standing bid, "
    )


_END_HELP = "[bold]rules[/] for the rules, [bold]quit[/] to leave."
_CALZA_HELP = "[bold]calza[/] to call it exact, "


def calls_help(calza: bool, bid_word: str = "bid") -> str:
    """The help line (Rich markup) where no bid is left to make: the standing ``bid_word``
    is the highest there is, so the help offers no example to type, only the calls (calza
    where this round allows it)."""
    calls = "the calls are" if calza else "the call is"
    return (
        f"No {bid_word} is higher than the standing {bid_word}: only {calls} left. "
        f"Type [bold]dudo[/] (or [bold]liar[/]) to call the standing {bid_word}, "
        + (_CALZA_HELP if calza else "")
        + _END_HELP
    )


HELP = bids_help(EXAMPLE_BID) + _CALZA_HELP + _END_HELP
HELP_NO_CALZA = bids_help(EXAMPLE_BID) + _END_HELP
"""The help line for a round without calza (rules without it, too few players left, a
palifico round), which would refuse the word: see :meth:`TerminalGame.help`."""
PALIFICO_RULE = "PALIFICO: ones are not wild and the face is locked"
PALIFICO_ONE_DIE = ", but you have one die: you may change it"
SHORT_HELP = (
    "Type [bold]help[/] for how to bid, [bold]rules[/] for the rules, [bold]quit[/] to leave."
)
"""The help on a screen too short for the whole of it."""
HAND_HELP = (
    "Type a hand like [bold]pair of 3s[/], [bold]two pair 5s and 2s[/], "
    "[bold]three 6s[/], [bold]low straight[/], [bold]high straight[/], "
    "[bold]full house 4s over 2s[/], [bold]four 2s[/] or [bold]five 6s[/] (the dice "
    "under all cups together must show it), [bold]dudo[/] (or [bold]liar[/]) to "
    "call the standing hand, [bold]rules[/] for the rules, [bold]quit[/] to leave."
)
CALL_WORDS = ("dudo", "liar", "d", "l")
CALZA_WORDS = ("calza", "c", "exact", "spot on")
LET_GO_WORDS = ("", "n", "no", "pass", "p", "let it go", "go", "skip")
HELP_WORDS = ("help", "?", "h")
QUIT_WORDS = ("q", "quit", "exit")
CALZA_ASK = "Type calza, or Enter to let it go: "
"""The end of the out-of-turn calza question: with "Calza on twelve 6s? " before it, still
one line at 60 columns."""
CALZA_OFFER = (
    "Not your turn, but you may call calza: say the standing bid is exactly right. "
    "Type off to stop these questions."
)
NO_MORE_CALZA = (
    "No more calza questions out of turn this game; on your turn you may still call calza."
)
ONE_COLUMN = 6
"""Up to this many players the table lists them in one column; more, in two."""
LOG_BIDS = 4
"""How many of the round's bids a turn screen lists when the game is not on a terminal
(a log, a program reading the output): the last few, after how many came before. A log
has every bid on a line of its own already, and the whole list grew by a bid a turn."""
FEWEST_BIDS = 3
"""The fewest of the round's latest bids a turn screen on a terminal lists, however short
the terminal: the standing bid and the two it answers. A longer list is cut to the latest
that fit the terminal's height (:meth:`TerminalGame.show_table`)."""
REVEAL_ROOM_BELOW = 2
"""Lines a reveal screen keeps free under it: a player out of the game ("Rui is out of the
game."), and the prompt to go on to the next round."""

ARTICLED_HANDS = tuple(f"a {start}" for start in HANDS_WITH_AN_ARTICLE)
"""How a hand that takes an article may start when typed with it: "a pair of 3s"."""


class QuitGame(Exception):
    """The player left (typed quit, or the input ended); the message says which.
    ``prompt_open``: the input ended right after a prompt, whose line nothing has ended
    (no line was read, nor echoed), so a message printed now needs a line break first."""

    def __init__(self, message: str, *, prompt_open: bool = False) -> None:
        super().__init__(message)
        self.prompt_open = prompt_open


def draw_dice(dice: Sequence[int], marked: Callable[[int], bool] | None = None) -> Text:
    """Dice side by side, drawn with pips, each face's number under its die; ``marked``
    dice are highlighted and starred (the star sits right after that die's number)."""
    text = Text()
    rows = ["╭─────╮", *("│{}│" for _ in range(3)), "╰─────╯"]
    for line in range(5):
        for die in dice:
            style = "bold green" if marked and marked(die) else ""
            if line in (0, 4):
                text.append(rows[line], style=style)
            else:
                text.append(rows[line].format(PIPS[die][line - 1]), style=style)
            text.append(" ")
        text.append("\n")
    for die in dice:
        star = "*" if marked and marked(die) else " "
        label = f"   {die}{star}".ljust(DIE_WIDTH)
        text.append(label, style="bold green" if star == "*" else "")
    return text


def printable_name(name: str) -> str:
    """``name`` as the terminal may show it, read as the server reads names
    (:func:`dudo.printable.printable`): tabs and line breaks as single spaces, and no
    control or format character (an ANSI escape, a bell, a bidi override), which would
    move the cursor, recolour the screen or reorder the line, nor a blank one (a Hangul
    filler), nor a pile of combining marks; trimmed ('' if nothing visible is left). A
    ``--name`` or a plug-in bot's ``name`` is shown as typed otherwise (Rich markup in it
    is escaped where it is printed)."""
    return printable(name)


def echoed_input(console: Console) -> Callable[[str], str]:
    """``console.input`` for input that is not a terminal (a pipe, a file): the line read
    is printed after the prompt, which ends the prompt's line. A terminal echoes what is
    typed; without it the prompt had no line end, and the reply or the next screen followed
    it on the same line (``Your move: Not allowed: ...``) in a log or for a program reading
    the output. The line is shown as :func:`printable_name` shows a name (no control
    character reaches the output)."""

    def read_line(prompt: str) -> str:
        line = console.input(prompt)
        console.print(Text(printable_name(line)), soft_wrap=True)
        return line

    return read_line


def distinct_names(names: Sequence[str]) -> list[str]:
    """The names with repeats told apart (``Nina``, ``Nina 2``): bots pick their names
    from a small cast, so two of them (or one and the player) can share one."""
    taken: set[str] = set()
    result = []
    for name in names:
        shown, number = name, 2
        while shown.casefold() in taken:
            shown, number = f"{name} {number}", number + 1
        taken.add(shown.casefold())
        result.append(shown)
    return result


def capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


MAX_QUOTED = MOST_QUOTED
"""The most characters of a typed line a reply quotes back (as the server's refusals do);
:func:`~dudo.printable.clipped` cuts a longer one there."""


def quoted(typed: str) -> str:
    """What the player typed, quoted in a reply (``'4 5x'``), :func:`~dudo.printable.clipped`."""
    return repr(clipped(typed))


def refusal(message: str) -> str:
    """A parser's error (``not a bid: 'x' (write it like ...)``) as the table's other
    refusals read: capitalised, its label in red up to the first colon, a full stop at the
    end. Rich markup, the message itself escaped. The parsers quote what was typed as
    :func:`quoted` does (:func:`~dudo.printable.clipped`), so a long line comes back short."""
    label, colon, rest = message.partition(": ")
    if not colon:
        label, rest = message, ""
    ending = "" if message.endswith((".", "!", "?")) else "."
    shown = f"[red]{escape(capitalised(label))}{colon.rstrip()}[/]"
    return f"{shown} {escape(rest)}{ending}" if rest else f"{shown}{ending}"


class TerminalGame:
    """A game with the person at seat 0 and ``bots`` in the other seats.

    ``levels`` names each bot's level (shown beside its name, unless it is the name:
    a plug-in bot's level is its class's name); ``pause`` is what happens
    after a reveal: ``None`` waits for Enter, a number waits that many seconds (0: not at
    all). ``clear`` wipes the screen at each new screen (for a terminal); without it a rule
    separates them. ``commitment`` gives the dice commitment of a round, shown at its start.

    Long on purpose: one person's game loop, whose prompts and screens share the game, the
    console and the pause; the words it reads and writes (bids, hands) are the engine's own
    parsers and formatters, so what is left here is the loop itself.
    """

    def __init__(
        self,
        game: Game,
        bots: Sequence[Bot],
        name: str,
        console: Console,
        read_line: Callable[[str], str],
        *,
        levels: Sequence[str] = (),
        pause: float | None = 0,
        clear: bool = False,
        commitment: Callable[[int], str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.game = game
        self.bots = list(bots)
        name = printable_name(name) or "You"
        me = name if name.lower() == "you" else f"{name} (you)"
        own = [printable_name(str(getattr(bot, "name", ""))) or "Bot" for bot in bots]
        self.names = distinct_names([name, *own])
        levels = list(levels) + [""] * (len(bots) - len(levels))
        self.labels = [
            me,
            *(
                # the level only where it says more than the name: a plug-in bot's level
                # is its class's name, often its name too ("Lowball", not "Lowball (Lowball)")
                f"{shown} ({level})" if level and level.casefold() != mine.casefold() else shown
                for shown, mine, level in zip(self.names[1:], own, levels, strict=False)
            ),
        ]
        self.console = console
        self.read_line = read_line
        self.pause = pause
        self.clear = clear
        self.commitment = commitment
        self.sleep = sleep
        self.last_outcome: str | None = None
        self.intro_shown = False
        self.rounds_played = 0
        self.calza_prompts = True
        self.calza_explained = False
        """Whether the line explaining the out-of-turn calza question was printed (in a
        log once is enough; on a terminal it comes on every question's screen)."""
        self.notice: str | None = None
        """A line for the top of the next screen (:meth:`tell`), Rich markup."""
        self.poker = game.rules.bids == "poker"
        self.rolloff_shown = False
        self.answering: tuple[SeatView, str] | None = None
        """The player's turn and the line they typed, while it is being answered."""
        self.bid_word = "hand" if self.poker else "bid"
        """What a bid is called on screen: at a Common Hand table, a hand (as in its help)."""
        self.whole = [*self.names, *self.labels]
        """Phrases no line breaks inside (:meth:`line`): the players' names and labels."""

    @property
    def help(self) -> str:
        """The help line for this round (Rich markup): calza only where it may be called
        this round, not at rules without it, nor with fewer players left than it needs,
        nor in a palifico round (the engine would refuse the word); its example bid one
        the engine would take (:meth:`example`). Where no bid is left (the standing bid
        is the highest there is) no example at all, only the calls: "4 5s" was offered
        there too, and refused as every bid was."""
        calza = self.game.calza_allowed()
        bids = self.bids_left()
        if bids is not None and not bids:
            return calls_help(calza, self.bid_word)
        if self.poker:
            return HAND_HELP
        return bids_help(self.example()) + (_CALZA_HELP if calza else "") + _END_HELP

    def bids_left(self) -> Sequence[Bid | Hand] | None:
        """The bids the help may offer: those of the seat to act, lowest first (in a
        palifico round, on the locked face); out of the player's turn, the ones they would
        have if the standing bid stood when it came. ``None`` out of the bidding, where any
        bid serves as an example; empty when the standing bid is the highest there is."""
        game = self.game
        if game.phase is not Phase.BIDDING:
            return None
        bids = game.legal_actions(game.turn).any_bids
        standing = game.standing
        if game.palifico and isinstance(standing, Bid):
            # the seat to act may have one die and leave the face, which the player may not
            bids = [bid for bid in bids if isinstance(bid, Bid) and bid.face == standing.face]
        return bids

    def example(self) -> Bid:
        """The help's example bid: :data:`EXAMPLE_BID` where it may be bid now, else the
        lowest bid that may (:meth:`bids_left`). "4 5s" was refused when it was no raise on
        the standing bid, over the dice in play, or on another face than a palifico
        round's. Where no bid is left the help offers none (:func:`calls_help`)."""
        bids = self.bids_left()
        if not bids or EXAMPLE_BID in bids or not isinstance(bids[0], Bid):
            return EXAMPLE_BID
        return bids[0]

    def named(self, seat: int) -> str:
        """A seat's name as Rich markup: escaped, so a name such as ``[/]`` or ``[red]``
        shows as typed instead of breaking (or recolouring) the line it is in."""
        return escape(self.names[seat])

    def who(self, seat: int) -> str:
        """The subject of a sentence (Rich markup): "You" for the player, else the bot's
        name."""
        return "You" if seat == 0 else self.named(seat)

    def whom(self, seat: int) -> str:
        """A seat's name after a verb or preposition (Rich markup): "you" for the player
        ("on six 2s by you", not "by You")."""
        return "you" if seat == 0 else self.named(seat)

    def verb(self, seat: int, plural: str, singular: str) -> str:
        return f"{self.who(seat)} {plural if seat == 0 else singular}"

    def line(self, markup: str, whole: Sequence[str] = ()) -> KeepWhole:
        """A line of Rich markup that wraps between words but never inside a player's
        name (nor inside any of ``whole``): see :mod:`dudo.tui_wrap`."""
        return KeepWhole(self.console.render_str(markup), [*self.whole, *whole])

    def bids_line(self, bids: Sequence[tuple[int, Bid | Hand]], last: int = 0) -> KeepWhole:
        """Who bid what this round, in order (only the ``last`` few, if given, after how
        many earlier ones are not shown: "… 9 earlier bids, then"); each "who: what" kept
        whole on its line."""
        label = "Hands" if self.poker else "Bids"
        shown = list(bids[-last:]) if last and len(bids) > last else list(bids)
        said = ", ".join(f"{self.named(seat)}: {in_words(bid)}" for seat, bid in shown)
        whole = [f"{self.names[seat]}: {in_words(bid)}" for seat, bid in shown]
        earlier = len(bids) - len(shown)
        if earlier:
            plural = "" if earlier == 1 else "s"
            said = f"… {earlier} earlier {self.bid_word}{plural}, then {said}"
        return self.line(f"{label}: {said}.", whole)

    # -- the loop -----------------------------------------------------------------------

    def play(self) -> tuple[int, ...]:
        """Play to the end; returns the winners (raises :class:`QuitGame` if the player left)."""
        game = self.game
        while game.phase is not Phase.OVER:
            if game.phase is Phase.ROLL:
                if game.rolloff is not None and not self.rolloff_shown:
                    self.show_rolloff()
                game.roll()
                if game.turn != 0:
                    self.show_round_start()
                continue
            events = self.next_action()
            self.show(events)
        return game.winners

    def next_action(self) -> list[Event]:
        game = self.game
        for seat in out_of_turn_seats(game):
            if seat == 0:
                if self.offer_calza():
                    return game.apply(0, CALZA)
                continue
            if ask(self.bots[seat - 1], game, seat) is CALZA:
                return game.apply(seat, CALZA)
        seat = game.turn
        if seat == 0:
            return game.apply(0, self.ask_player())
        action = ask(self.bots[seat - 1], game, seat)
        assert action is not None  # ask() refuses a pass on the bot's turn
        return game.apply(seat, action)

    # -- the player's turn --------------------------------------------------------------

    def read(self, prompt: str) -> str:
        """A line from the player. Whatever was on screen has now been read, the help too:
        a screen cleared before any prompt (a round a bot opens and the player is not asked
        about) is gone before anyone reads it, so the help waits for a screen that stays."""
        self.intro_shown = True
        try:
            line = self.read_line(prompt)
        except EOFError:
            raise QuitGame("The input ended, so you left the table", prompt_open=True) from None
        if line.strip().lower() in QUIT_WORDS:
            raise QuitGame("You left the table")
        return line

    def ask_player(self) -> Action:
        seen = view(self.game, 0)
        self.show_table(seen)
        try:
            while True:
                typed = " ".join(self.read("Your move: ").split())
                self.answering = (seen, typed)
                action = self.parse(typed.lower())
                if action is None:
                    continue
                reason = self.game.reason(0, action)
                if reason is None:
                    return action
                self.say(f"[red]Not allowed:[/] {self.why(action, reason)}{self.hint(seen)}")
        finally:
            self.answering = None

    def say(self, message: str) -> None:
        """Answer what the player typed on their turn (Rich markup). On a terminal the turn
        screen is drawn afresh first, with the line they typed under it: replies piling up
        under the table pushed the round, the standing bid and at last the player's own
        dice off the top of a small terminal. In a log the reply follows the line."""
        if self.clear and self.answering is not None:
            seen, typed = self.answering
            self.show_table(seen)
            if typed:
                self.console.print(Text(f"You typed: {clipped(typed)}", style="dim"))
        self.console.print(message)

    def show_rules(self) -> None:
        """The rules sheet; on a terminal on a screen of its own until the player goes back
        to the table (it is longer than a screen, and the table is drawn again after it)."""
        if self.clear and self.answering is not None:
            self.console.clear()
        self.console.print(rules_sheet(self.game.rules), markup=False)
        if self.clear and self.answering is not None:
            self.read("Press Enter to go back to the table: ")
            self.show_table(self.answering[0])

    def parse(self, text: str) -> Action | None:
        if text in CALL_WORDS:
            return DUDO
        if text in CALZA_WORDS:
            return CALZA
        if text in ("", *HELP_WORDS):
            self.say(self.help)
            return None
        if text == "rules":
            self.show_rules()
            return None
        if self.poker:
            return self.parse_hand(text)
        try:
            return Bid.parse(text)
        except BadBidText as error:
            if self._is_hand(text):
                self.say(
                    f"[red]Not a bid here:[/] {escape(quoted(text))} is a poker hand, "
                    "but this table bids a quantity and a face, like 4 5s."
                )
            else:
                self.say(refusal(str(error)))
            return None

    def parse_hand(self, text: str) -> Hand | None:
        """A Common Hand bid typed in words, with its article or without (``a pair of 3s``,
        as the refusals' hints say it); a clear error (and None) for anything else."""
        if text.startswith(ARTICLED_HANDS):
            text = text[2:]
        try:
            return Hand.parse(text)
        except BadHandText as error:
            if self._is_bid(text):
                self.say(
                    f"[red]Not a hand:[/] {escape(quoted(text))} is a quantity "
                    "bid, but this table bids poker hands (Common Hand), like "
                    "pair of 3s or full house 4s over 2s."
                )
            else:
                self.say(refusal(str(error)))
            return None

    def why(self, action: Action, reason: str) -> str:
        """Why the engine refused ``action`` (Rich markup): the cause of ``reason`` in a
        sentence or two (:func:`dudo.refusals.explain`), to follow "Not allowed:"."""
        words = explain(self.game, 0, action, reason=reason, names=self.names).words
        return escape(words[:1].lower() + words[1:])

    def hint(self, seen: SeatView) -> str:
        """What the player may do instead, as full sentences after the refusal."""
        bids = seen.legal.any_bids
        sentences = []
        if seen.standing is None:
            if bids:
                sentences.append(f"You open: the lowest bid is {self.typed(bids[0])}")
        else:
            options = []
            if bids:
                options.append(f"the lowest raise is {self.typed(bids[0])}")
            if DUDO in seen.legal:
                options.append("you may call dudo")
            if options:
                sentences.append(" or ".join(options))
        return "".join(f" {capitalised(sentence)}." for sentence in sentences)

    def offer_calza(self) -> bool:
        """Ask whether to call calza out of turn; every answer gets a reply. ``off`` stops
        these questions for the rest of the game (calza on one's turn stays open).

        On a terminal each question comes under the table drawn afresh (the bids, the
        standing bid, the player's dice), and so does each reply: questions printed one
        under the other after each bot's bid scrolled the table away. The question itself
        is short enough for a 60-column line; what it is about is said on the line above.
        """
        if not self.calza_prompts:
            return False
        standing = self.game.standing
        assert standing is not None
        seen = view(self.game, 0)
        prompt = f"Calza on {in_words(standing)}? {CALZA_ASK}"
        if len(prompt) > self.console.width:
            prompt = f"Calza? {CALZA_ASK}"  # the standing bid is on the line above
        if self.clear:
            self.show_table(seen)
        if self.clear or not self.calza_explained:
            self.calza_explained = True
            self.console.print(self.line(CALZA_OFFER))
        again = "Type calza, or press Enter to let it go."
        try:
            while True:
                answer = " ".join(self.read(prompt).split())
                self.answering = (seen, answer)
                answer = answer.lower()
                if answer in CALZA_WORDS or answer in ("y", "yes"):
                    return True
                if answer in LET_GO_WORDS:
                    return False
                if answer in ("off", "never", "stop"):
                    self.calza_prompts = False
                    self.tell(NO_MORE_CALZA)
                    return False
                if answer in HELP_WORDS:
                    self.say(
                        "It is not your turn, but these rules let anyone call calza: say "
                        f"the bid is exactly right. {again} Type off to stop these questions."
                    )
                elif answer == "rules":
                    self.show_rules()
                elif answer in CALL_WORDS or self._is_bid(answer) or self._is_hand(answer):
                    self.say(
                        f"[red]Not now:[/] it is {self.named(self.game.turn)}'s "
                        f"turn; out of turn you may only call calza. {again}"
                    )
                else:
                    self.say(f"[red]Not understood:[/] {escape(quoted(answer))}. {again}")
        finally:
            self.answering = None

    def tell(self, message: str) -> None:
        """Say something that follows from the player's answer but needs no reply (Rich
        markup). On a terminal it waits for the next screen, which is drawn at once and
        would clear it unread; in a log it follows the answer."""
        if self.clear:
            self.notice = message
        else:
            self.console.print(self.line(message))

    @staticmethod
    def typed(bid: Bid | Hand) -> str:
        """A bid in words and as it may be typed: ``four 5s (4x5)``; a hand's words are
        what is typed, with its article where it takes one (``a pair of 4s``: the article
        may be typed too)."""
        return in_words(bid) if isinstance(bid, Hand) else f"{bid.words()} ({bid})"

    @staticmethod
    def _is_bid(text: str) -> bool:
        """Whether ``text`` is a quantity bid of a real face: ``five 7s`` parses as one
        (the engine refuses its face), but at a Common Hand table it is a hand with a face
        that does not exist, and the hand parser says so."""
        try:
            bid = Bid.parse(text)
        except BadBidText:
            return False
        return 1 <= bid.face <= 6

    @staticmethod
    def _is_hand(text: str) -> bool:
        try:
            Hand.parse(text)
        except BadHandText:
            return False
        return True

    # -- drawing ------------------------------------------------------------------------

    def new_screen(self, title: str | list[RenderableType]) -> None:
        """Start a fresh screen: cleared on a terminal, else a rule; the help until read."""
        self.print_screen(self.screen_top(title))

    def print_screen(self, parts: Sequence[RenderableType]) -> None:
        """Print a screen's parts (after clearing the terminal); its notice, if it has
        one (:meth:`screen_top`), has now been shown."""
        if self.clear:
            self.console.clear()
        for part in parts:
            self.console.print(part)
        self.notice = None

    def screen_top(
        self, title: str | list[RenderableType], short_help: bool = False
    ) -> list[RenderableType]:
        """A screen's heading, and the help and who is at the table until the player has
        read them (see :meth:`read`); ``short_help`` for a screen too short for the whole
        help, one line that says how to get it. A notice (:meth:`tell`) comes first."""
        parts = heading(self.console, title) if isinstance(title, str) else list(title)
        if self.notice:
            parts.append(self.line(f"[bold]{self.notice}[/]"))
        if not self.intro_shown:
            # In a log every line stays, so once is enough; on a terminal the next screen
            # clears this one, so the help comes again until a prompt has waited under it.
            self.intro_shown = not self.clear
            parts.append(self.console.render_str(SHORT_HELP if short_help else self.help))
            at_table = "At the table: " + ", ".join(map(escape, self.labels[1:])) + "."
            parts.append(self.line(at_table))
        return parts

    def show_rolloff(self) -> None:
        """The roll-off before round 1: each attempt's dice per player, who tied, who
        opens (its dice come from the committed seeds like every round's: see the record)."""
        self.rolloff_shown = True
        roll_off = self.game.rolloff
        assert roll_off is not None
        self.new_screen("Roll-off: who opens round 1")
        self.console.print(
            "Everyone rolls two dice; the highest total opens. Those tied for "
            "the highest roll again."
        )
        for number, attempt in enumerate(roll_off.attempts, start=1):
            rolls = ", ".join(
                f"{self.named(seat)} {a}+{b}={a + b}"
                for seat, (a, b) in zip(attempt.seats, attempt.rolls, strict=True)
            )
            best = max(a + b for a, b in attempt.rolls)
            if len(attempt.tied) > 1:
                tied = " and ".join(self.who(seat) if seat else "you" for seat in attempt.tied)
                result = f"{capitalised(tied)} tie at {best} and roll again."
            else:
                result = f"{self.verb(attempt.tied[0], 'roll', 'rolls')} the highest, {best}."
            self.console.print(self.line(f"Roll {number}: {rolls}. {result}"))
        opener = roll_off.opener
        assert opener is not None
        self.console.print(self.line(f"[bold]{self.verb(opener, 'open', 'opens')} round 1.[/]"))
        self.wait_for_round(1)

    def print_dice(self, dice: Sequence[int]) -> None:
        for row in self.dice_rows(dice):
            self.console.print(row)

    def dice_rows(self, dice: Sequence[int]) -> list[Text]:
        """The player's dice drawn in as many rows as the terminal's width needs: a row
        wider than the screen would wrap each die's box into the next line's."""
        per_row = max(1, self.console.width // DIE_WIDTH)
        return [draw_dice(dice[start : start + per_row]) for start in range(0, len(dice), per_row)]

    def round_title(self) -> list[RenderableType]:
        """The round's heading; a palifico round's rule on its own line if the terminal is
        too narrow for it in the title, where Rich would cut it short. A player down to one
        die is told they may change the face where the rules let them."""
        game = self.game
        header = game.round_header()
        rule = None
        if header.palifico:
            rule = PALIFICO_RULE
            if game.dice_counts[0] and game.may_change_face(0):
                rule += PALIFICO_ONE_DIE
        return heading(self.console, f"Round {header.number}", rule)

    def round_facts(self) -> list[RenderableType]:
        """The last round's outcome, who opens and the dice commitment."""
        header = self.game.round_header()
        facts = []
        if self.last_outcome:
            facts.append(f"Last round: {self.last_outcome}")
        sealed = ""
        if self.commitment is not None:
            sealed = f"Dice sealed: sha256 {self.commitment(header.number)[:16]}…"
        opened = ("open", "opens") if not self.game.bids else ("opened", "opened")
        facts.append(f"{self.verb(header.opener, *opened)}. {sealed}".strip())
        return [self.line(fact) for fact in facts]

    def show_round_start(self) -> None:
        """A round the player does not open: the facts and their dice, once."""
        self.new_screen(self.round_title())
        for fact in self.round_facts():
            self.console.print(fact)
        seen = view(self.game, 0)
        if seen.dice:
            self.console.print("Your dice:")
            self.print_dice(seen.dice)
        else:
            self.console.print("You are out; watching the others.")

    def show_table(self, seen: SeatView) -> None:
        """The player's turn: a fresh screen with everything needed to decide. On a
        terminal, the roomiest layout that fits its height with every bid of the round
        (:mod:`dudo.tui_screen`); if none does, the most compact one with the latest bids
        that fit. Every bid made a long round at six players taller than the terminal,
        and its top (the round, whose turn it is, the standing bid) scrolled away."""
        intro = not self.intro_shown
        layouts = [
            (halves, short_help, drawn)
            for halves, short_help, drawn in (
                (2 if len(self.labels) > ONE_COLUMN else 1, False, True),
                (2, False, True),
                (2, True, True),
                (2, True, False),
            )
            if halves == 1 or len(self.labels) > 2
        ]

        def screen(layout: tuple[int, bool, bool], last: int) -> list[RenderableType]:
            self.intro_shown = not intro
            return self.turn_screen(seen, *layout, last=last)

        if not self.clear:  # a log has no height to fit
            self.print_screen(screen(layouts[0], LOG_BIDS))
            return

        def variants() -> Iterator[list[RenderableType]]:
            for layout in layouts:
                yield screen(layout, 0)
            if seen.bids:
                compact = layouts[-1]
                yield screen(compact, self.latest_bids_that_fit(seen.bids, screen(compact, 0)))

        self.print_screen(first_that_fits(self.console, variants()))

    def latest_bids_that_fit(
        self,
        bids: Sequence[tuple[int, Bid | Hand]],
        whole_round: list[RenderableType],
        room_below: int = ROOM_BELOW,
    ) -> int:
        """How many of the round's latest ``bids`` the screen ``whole_round`` (which lists
        every one) has room for on the terminal with ``room_below`` lines to spare, after
        how many earlier ones are not shown: as many as fit, never fewer than
        :data:`FEWEST_BIDS`. The turn screen's rule, and the reveal's."""
        every_bid = height(self.console, [self.bids_line(bids)])
        room = self.console.height - room_below - height(self.console, whole_round) + every_bid
        last = FEWEST_BIDS
        while last < len(bids) and height(self.console, [self.bids_line(bids, last + 1)]) <= room:
            last += 1
        return last

    def turn_screen(
        self, seen: SeatView, halves: int, short_help: bool, drawn: bool, last: int = 0
    ) -> list[RenderableType]:
        """The parts of a turn screen: players in ``halves`` columns, the help whole or
        short, the round's bids (only the ``last`` few, if given), the player's dice
        ``drawn`` or as numbers on one line."""
        parts = self.screen_top(self.round_title(), short_help)
        parts += self.round_facts()
        parts.append(self.players_table(seen, halves))
        if seen.bids:
            parts.append(self.bids_line(seen.bids, last))
        if seen.standing is not None:
            parts.append(
                self.line(
                    f"Standing {self.bid_word}: [bold]{in_words(seen.standing)}[/] by "
                    f"{self.whom(seen.bidder or 0)}. {seen.dice_in_play} dice in play."
                )
            )
        else:
            parts.append(self.line(f"No {self.bid_word} yet. {seen.dice_in_play} dice in play."))
        if not drawn:
            return [*parts, dice_in_a_line("Your dice:", seen.dice)]
        return [*parts, Text("Your dice:"), *self.dice_rows(seen.dice)]

    def players_table(self, seen: SeatView, halves: int = 0) -> Table:
        """Every player with their dice (and points): one column of players, or two side
        by side for more than :data:`ONE_COLUMN` players (or ``halves`` columns if given),
        so a full table fits 24 lines."""
        points = seen.rules.format == "points"
        rows = []
        for seat, label in enumerate(self.labels):
            marker = " ◀" if seat == seen.turn else ""
            count = seen.dice_counts[seat]
            row = [escape(label) + marker, str(count) if count else "out"]
            if points:
                row.append(str(seen.points[seat]))
            rows.append(row)
        halves = halves or (2 if len(rows) > ONE_COLUMN else 1)
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 2))
        for _ in range(halves):
            table.add_column("player")
            table.add_column("dice", justify="right")
            if points:
                table.add_column("points", justify="right")
        height = -(-len(rows) // halves)
        for index in range(height):
            cells = list(rows[index])
            if halves == 2:
                cells += (
                    rows[index + height] if index + height < len(rows) else [""] * len(rows[index])
                )
            table.add_row(*cells)
        return table

    def show(self, events: list[Event]) -> None:
        for event in events:
            match event:
                case Revealed():
                    self.show_reveal(event)
                case PlayerOut(seat=seat):
                    self.console.print(
                        self.line(f"[bold]{self.verb(seat, 'are', 'is')} out of the game.[/]")
                    )
                case BidPlaced(seat=seat, bid=bid) if seat != 0:
                    self.console.print(
                        self.line(f"{self.named(seat)} bids [bold]{in_words(bid)}[/].")
                    )
                case GameOver(winners=winners):
                    self.show_winners(winners)
        if any(isinstance(event, Revealed) for event in events) and (
            self.game.phase is not Phase.OVER
        ):
            self.wait_after_reveal()

    def wait_after_reveal(self) -> None:
        """Keep the outcome on screen until the player goes on (or the pause is over)."""
        self.wait_for_round(self.game.round_number)

    def wait_for_round(self, number: int) -> None:
        if self.pause is None:
            self.read(f"Press Enter for round {number} (or type quit): ")
        elif self.pause > 0:
            self.console.print(f"Round {number} in {self.pause:g} s…")
            self.sleep(self.pause)

    def show_winners(self, winners: tuple[int, ...]) -> None:
        if winners == (0,):
            line = "You win the game!"
        elif len(winners) == 1:
            line = f"{self.named(winners[0])} wins the game."
        else:
            line = " and ".join(self.who(seat) for seat in winners) + " share the win."
        self.console.print(Panel(f"[bold]{line}[/]", expand=False))

    def show_reveal(self, reveal: Revealed) -> None:
        """The call and its outcome on a screen of its own: the round's bids (a round in
        which the player had no turn, or was out, was otherwise never seen), the call,
        every cup with its counted dice, and who loses what. On a terminal too short for
        all the bids, only the latest that fit, as on a turn screen (the screen must hold
        the cups and the outcome); it used to cut them to the last three, however tall."""
        self.rounds_played += 1
        title = f"Round {self.rounds_played}: the cups are lifted"
        words = "DUDO!" if reveal.call is DUDO else "CALZA!"
        shown, self.last_outcome = self.outcome(reveal)
        body: list[RenderableType] = [
            self.line(
                f"[bold]{self.named(reveal.caller)}: {words}[/] on {in_words(reveal.bid)} "
                f"by {self.whom(reveal.bidder)}."
            ),
            Text("Cups up (counted dice in [brackets]):"),
            *cup_rows(self.labels, reveal.cups, reveal.counts, self.console.width),
            self.line(f"[bold]{shown}[/]"),
        ]
        intro = not self.intro_shown

        def screen(last: int | None) -> list[RenderableType]:
            """The reveal with the round's bids (the ``last`` few, if not 0; none if None)."""
            self.intro_shown = not intro
            history = [] if last is None else [self.bids_line(reveal.bids, last)]
            return [*self.screen_top(title), *history, *body]

        def variants() -> Iterator[list[RenderableType]]:
            if not reveal.bids:
                yield screen(None)
                return
            whole_round = screen(0)
            yield whole_round
            if self.clear:  # a log has no height to fit
                last = self.latest_bids_that_fit(reveal.bids, whole_round, REVEAL_ROOM_BELOW)
                yield screen(last)

        fitted = first_that_fits(self.console, variants(), room_below=REVEAL_ROOM_BELOW)
        self.print_screen(fitted)

    def outcome(self, reveal: Revealed) -> tuple[str, str]:
        """What the call found and what follows (Rich markup): as the reveal says it, and
        as the next round's "Last round: " line goes on (lower case first)."""
        bid = reveal.bid
        verdict = {
            "holds": f"the {self.bid_word} holds",
            "fails": f"the {self.bid_word} fails",
            "exact": "exactly right",
            "not_exact": "not exact",
        }[reveal.outcome]
        if isinstance(bid, Hand):
            held = "contain" if reveal.outcome == "holds" else "lack"
            found = f"the dice {held} {in_words(bid)}"
        else:
            found = f"{reveal.count} counted against {bid.words()}"
        consequence = self.consequence(reveal)
        kept = f"{found} — {verdict}. {consequence}"
        if isinstance(bid, Hand):
            return capitalised(kept), kept
        return f"Counted: {reveal.count} against {bid.quantity} — {verdict}. {consequence}", kept

    def consequence(self, reveal: Revealed) -> str:
        """Who loses what (or wins a die back, or could not) after a reveal."""
        if reveal.loser is not None:
            seat = reveal.loser
            if reveal.points is not None:
                what = "a penalty point" if reveal.change == 1 else f"{reveal.change} points"
                return f"{self.verb(seat, 'take', 'takes')} {what}."
            what = "a die" if reveal.change == 1 else f"{reveal.change} dice"
            return f"{self.verb(seat, 'lose', 'loses')} {what}."
        seat = reveal.caller
        if reveal.change:
            return f"{self.verb(seat, 'win', 'wins')} a die back."
        if reveal.points is None:
            held = reveal.dice_counts[seat]
            return (
                f"Nobody loses a die. {self.verb(seat, 'hold', 'holds')} {held} dice "
                "already, the most a cup may hold, so no die comes back."
            )
        return "Nobody takes a point."
