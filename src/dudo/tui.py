"""The terminal game: one person against bots, drawn with Rich.

Everything the player sees comes from the engine's view of their seat, and everything they
type goes through the engine's legality check, so the terminal never decides a rule. Input
is read line by line from any callable, which is how the tests drive a whole game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dudo.bids import BadBidText, Bid
from dudo.bots.base import Bot
from dudo.bots.table import out_of_turn_seats
from dudo.game import (
    CALZA,
    DUDO,
    REASONS,
    Action,
    BidPlaced,
    Event,
    Game,
    GameOver,
    Phase,
    PlayerOut,
    Revealed,
    RoundStarted,
)
from dudo.hands import Hand
from dudo.rules_text import rules_sheet
from dudo.view import SeatView, view

PIPS = {
    1: ("     ", "  ●  ", "     "),
    2: ("●    ", "     ", "    ●"),
    3: ("●    ", "  ●  ", "    ●"),
    4: ("●   ●", "     ", "●   ●"),
    5: ("●   ●", "  ●  ", "●   ●"),
    6: ("●   ●", "●   ●", "●   ●"),
}
HELP = ("Type a bid like [bold]4 5s[/] or [bold]4x5[/] (four 5s), [bold]dudo[/] (or "
        "[bold]liar[/]) to call the standing bid, [bold]calza[/] to call it exact, "
        "[bold]rules[/] for the rules, [bold]quit[/] to leave.")


class QuitGame(Exception):
    """The player left (typed quit, or the input ended)."""


def draw_dice(dice: Sequence[int], marked: Callable[[int], bool] | None = None) -> Text:
    """Dice side by side, drawn with pips; ``marked`` dice are highlighted (and starred)."""
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
    if marked:
        text.append("  ".join(f"{die}{'*' if marked(die) else ' '}" for die in dice))
    else:
        text.append("   ".join(f"  {die}  " for die in dice))
    return text


class TerminalGame:
    """A game with the person at seat 0 and ``bots`` in the other seats."""

    def __init__(self, game: Game, bots: Sequence[Bot], name: str, console: Console,
                 read_line: Callable[[str], str]) -> None:
        self.game = game
        self.bots = list(bots)
        self.names = [name, *(bot.name for bot in bots)]
        self.console = console
        self.read_line = read_line

    # -- the loop -----------------------------------------------------------------------

    def play(self) -> tuple[int, ...]:
        """Play to the end; returns the winners (raises :class:`QuitGame` if the player left)."""
        game = self.game
        self.console.print(Panel(HELP, title="dudo", expand=False))
        self.show_round_start()
        while game.phase is not Phase.OVER:
            if game.phase is Phase.ROLL:
                game.roll()
                self.show_my_dice()
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
            if self.bots[seat - 1].act(view(game, seat)) is CALZA:
                return game.apply(seat, CALZA)
        seat = game.turn
        if seat == 0:
            return game.apply(0, self.ask_player())
        action = self.bots[seat - 1].act(view(game, seat))
        if action is None or action not in game.legal_actions(seat):
            action = DUDO if DUDO in game.legal_actions(seat) else game.legal_actions(seat)[0]
        return game.apply(seat, action)

    # -- the player's turn --------------------------------------------------------------

    def read(self, prompt: str) -> str:
        try:
            line = self.read_line(prompt)
        except EOFError:
            raise QuitGame("the input ended") from None
        if line.strip().lower() in ("q", "quit", "exit"):
            raise QuitGame("you left the table")
        return line

    def ask_player(self) -> Action:
        seen = view(self.game, 0)
        self.show_table(seen)
        while True:
            text = self.read("Your move: ").strip().lower()
            action = self.parse(text)
            if action is None:
                continue
            reason = self.game.reason(0, action)
            if reason is None:
                return action
            self.console.print(f"[red]Not allowed:[/] {REASONS[reason]}.{self.hint(seen)}")

    def parse(self, text: str) -> Action | None:
        if text in ("dudo", "liar", "d", "l"):
            return DUDO
        if text in ("calza", "c", "exact", "spot on"):
            return CALZA
        if text in ("", "help", "?", "h"):
            self.console.print(HELP)
            return None
        if text == "rules":
            self.console.print(rules_sheet(self.game.rules))
            return None
        try:
            return Bid.parse(text)
        except BadBidText as error:
            self.console.print(f"[red]{error}[/]")
            return None

    def hint(self, seen: SeatView) -> str:
        bids = seen.legal.bids
        options = []
        if bids:
            options.append(f"the lowest raise is {bids[0].words()} ({bids[0]})")
        if DUDO in seen.legal:
            options.append("or call dudo")
        return (" " + ", ".join(options) + ".") if options else ""

    def offer_calza(self) -> bool:
        standing = self.game.standing
        assert standing is not None
        answer = self.read(f"Call calza on {standing.words()}? Type calza, or Enter to let "
                           "it go: ").strip().lower()
        return answer in ("calza", "c", "y", "yes")

    # -- drawing ------------------------------------------------------------------------

    def show_round_start(self) -> None:
        header = self.game.round_header()
        title = f"Round {header.number}"
        if header.palifico:
            title += " — PALIFICO: ones are not wild and the face is locked"
        self.console.rule(title)
        self.console.print(f"{self.names[header.opener]} opens.")

    def show_my_dice(self) -> None:
        seen = view(self.game, 0)
        if seen.dice:
            self.console.print("Your dice:")
            self.console.print(draw_dice(seen.dice))
        else:
            self.console.print("You are out; watching the others.")

    def show_table(self, seen: SeatView) -> None:
        table = Table(show_header=True, header_style="bold")
        table.add_column("player")
        table.add_column("dice", justify="right")
        if seen.rules.format == "points":
            table.add_column("points", justify="right")
        for seat, name in enumerate(self.names):
            marker = " ◀" if seat == seen.turn else ""
            row = [name + marker, str(seen.dice_counts[seat]) if seen.dice_counts[seat] else "out"]
            if seen.rules.format == "points":
                row.append(str(seen.points[seat]))
            table.add_row(*row)
        self.console.print(table)
        if seen.bids:
            history = ", ".join(f"{self.names[seat]}: {bid.words()}" for seat, bid in seen.bids)
            self.console.print(f"Bids: {history}")
        if seen.standing is not None:
            self.console.print(f"Standing bid: [bold]{seen.standing.words()}[/] by "
                               f"{self.names[seen.bidder or 0]}. "
                               f"{seen.dice_in_play} dice in play.")
        else:
            self.console.print(f"You open. {seen.dice_in_play} dice in play.")
        self.console.print("Your dice:")
        self.console.print(draw_dice(seen.dice))

    def show(self, events: list[Event]) -> None:
        for event in events:
            match event:
                case Revealed():
                    self.show_reveal(event)
                case PlayerOut(seat=seat):
                    who = "You are" if seat == 0 else f"{self.names[seat]} is"
                    self.console.print(f"[bold]{who} out of the game.[/]")
                case BidPlaced(seat=seat, bid=bid) if seat != 0:
                    self.console.print(f"{self.names[seat]} bids [bold]{bid.words()}[/].")
                case RoundStarted():
                    self.show_round_start()
                case GameOver(winners=winners):
                    self.show_winners(winners)

    def show_winners(self, winners: tuple[int, ...]) -> None:
        if winners == (0,):
            line = "You win the game!"
        elif len(winners) == 1:
            line = f"{self.names[winners[0]]} wins the game."
        else:
            line = " and ".join(self.names[seat] for seat in winners) + " share the win."
        self.console.print(Panel(f"[bold]{line}[/]", expand=False))

    def show_reveal(self, reveal: Revealed) -> None:
        caller = self.names[reveal.caller]
        words = "DUDO!" if reveal.call is DUDO else "CALZA!"
        self.console.print(f"[bold]{caller}: {words}[/] on {reveal.bid.words()} by "
                           f"{self.names[reveal.bidder]}. Cups up:")
        for seat, cup in enumerate(reveal.cups):
            if cup:
                self.console.print(self.names[seat])
                self.console.print(draw_dice(cup, reveal.counts))
        verdict = {"holds": "the bid holds", "fails": "the bid fails",
                   "exact": "exactly right", "not_exact": "not exact"}[reveal.outcome]
        if isinstance(reveal.bid, Hand):
            held = "the dice contain" if reveal.outcome == "holds" else "the dice lack"
            self.console.print(f"{held.capitalize()} {reveal.bid.words()} — {verdict}.")
        else:
            self.console.print(f"Counted: [bold]{reveal.count}[/] against "
                               f"{reveal.bid.quantity} — {verdict}.")
        if reveal.loser is not None:
            you = reveal.loser == 0
            who = "You" if you else self.names[reveal.loser]
            if reveal.points is not None:
                what = "a penalty point" if reveal.change == 1 else f"{reveal.change} points"
                verb = "take" if you else "takes"
            else:
                what = "a die" if reveal.change == 1 else f"{reveal.change} dice"
                verb = "lose" if you else "loses"
            self.console.print(f"{who} {verb} {what}.")
        elif reveal.change:
            who = "You win" if reveal.caller == 0 else f"{caller} wins"
            self.console.print(f"{who} a die back.")
