"""Bots: players that map what their seat sees to an action.

Levels: ``random`` (the floor), ``easy``, ``normal`` and ``hard``. :func:`make_bot` builds one
by level name, or loads a user's own bot class from ``package.module:Name`` or
``path/to/file.py:Name``.
"""

from __future__ import annotations

from dudo.bots.base import Bot, Persona, SeededBot
from dudo.bots.easy import EasyBot
from dudo.bots.normal import NormalBot
from dudo.bots.random_bot import RandomBot
from dudo.bots.registry import LEVELS, BotSpecError, load_bot_class, make_bot

__all__ = [
    "LEVELS",
    "Bot",
    "BotSpecError",
    "EasyBot",
    "NormalBot",
    "Persona",
    "RandomBot",
    "SeededBot",
    "load_bot_class",
    "make_bot",
]
