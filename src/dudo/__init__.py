"""dudo: Liar's Dice (Dudo, Perudo, Cacho) for people and programs.

The rules engine is importable from here::

    >>> from dudo import Bid, Game, Hand, RollOff, Rules
"""

from dudo.bids import Bid
from dudo.dice import DiceSource, ScriptedDice, SeededDice, SystemDice
from dudo.game import (
    CALZA,
    DUDO,
    Action,
    Call,
    Game,
    IllegalAction,
    LegalActions,
    Phase,
)
from dudo.hands import Hand
from dudo.rolloff import RollOff
from dudo.rules import PRESETS, Rules, RulesError
from dudo.view import SeatView, view

__version__ = "0.1.0"

__all__ = [
    "CALZA",
    "DUDO",
    "PRESETS",
    "Action",
    "Bid",
    "Call",
    "DiceSource",
    "Game",
    "Hand",
    "IllegalAction",
    "LegalActions",
    "Phase",
    "RollOff",
    "Rules",
    "RulesError",
    "ScriptedDice",
    "SeatView",
    "SeededDice",
    "SystemDice",
    "__version__",
    "view",
]
