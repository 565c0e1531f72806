"""Finding bots by name: the built-in levels and users' own classes.

An entrant is a level (``random``, ``easy``, ``normal``, ``hard``) or a class with the bot
interface named ``package.module:ClassName`` or ``path/to/file.py:ClassName``. The class
is called with ``seed=`` (an int) if its constructor accepts it, else with no arguments,
and with ``budget_ms=`` (the decision budget) too when one is set and it accepts that, and
``wait_for_solves=False`` when asked for and accepted (the hard bot: see
:mod:`dudo.bots.solved`).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

from dudo.bots.base import Bot
from dudo.bots.easy import EasyBot
from dudo.bots.hard import HardBot
from dudo.bots.normal import NormalBot
from dudo.bots.random_bot import RandomBot

LEVELS: dict[str, type] = {
    "random": RandomBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "hard": HardBot,
}


CONSTRUCTOR_HINT = " (a bot's constructor may take seed, budget_ms and wait_for_solves, no more)"
"""Added to a constructor's TypeError: what :func:`make_bot` can pass it."""


class BotSpecError(ValueError):
    """An entrant that names no usable bot; the message says what is wrong, in one line
    that names the file or module and the class."""


def _one_line(error: BaseException) -> str:
    """``ValueError: boom``, as a traceback's last line reads; a syntax error with its line
    (``SyntaxError at line 2: expected ':'``)."""
    if isinstance(error, SyntaxError):
        return f"{type(error).__name__} at line {error.lineno}: {error.msg}"
    message = " ".join(str(error).split())
    if len(message) > 160:
        message = message[:157] + "..."
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _classes_with_act(module: object) -> list[str]:
    return sorted(
        name
        for name, value in vars(module).items()
        if inspect.isclass(value)
        and callable(getattr(value, "act", None))
        and value.__module__ == getattr(module, "__name__", None)
    )


def load_bot_class(spec: str) -> type:
    """The class an entrant names (a level, ``module:Name`` or ``file.py:Name``)."""
    if spec in LEVELS:
        return LEVELS[spec]
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise BotSpecError(
            f"unknown bot {spec!r}: use a level ({', '.join(LEVELS)}), "
            "package.module:ClassName or path/to/file.py:ClassName"
        )
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise BotSpecError(f"bot file not found: {where!r}")
        module_name = f"_dudo_user_bot_{abs(hash(path.resolve()))}"
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise BotSpecError(f"cannot load {where!r} as Python")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as error:
            sys.modules.pop(module_name, None)
            raise BotSpecError(f"{where!r} failed to load: {_one_line(error)}") from error
    else:
        if Path(where).is_dir():
            raise BotSpecError(f"{where!r} is a folder: name a file, path/to/file.py:ClassName")
        is_file = Path(where).is_file()  # good.json: no module named '/tmp/x/good'
        if is_file or not all(part.isidentifier() for part in where.split(".")):
            what = "not a Python file (.py)" if is_file else "neither a .py file nor a module"
            raise BotSpecError(
                f"{where!r} is {what}: a plug-in bot is a Python file or a module, "
                "path/to/file.py:ClassName or package.module:ClassName"
            )
        try:
            module = importlib.import_module(where)
        except ImportError as error:
            raise BotSpecError(f"cannot import {where!r}: {error}") from error
        except Exception as error:  # the module itself raised (or has a syntax error)
            raise BotSpecError(f"{where!r} failed to import: {_one_line(error)}") from error
    cls = getattr(module, name, None)
    if not inspect.isclass(cls):
        bots = _classes_with_act(module)
        found = f" ({name!r} is a {type(cls).__name__}, not a class)" if cls is not None else ""
        offer = f"; bot classes there: {', '.join(bots)}" if bots else ""
        raise BotSpecError(f"{where!r} has no class {name!r}{found}{offer}")
    act = getattr(cls, "act", None)
    if not callable(act):
        raise BotSpecError(f"{spec!r} has no act(view) method, so it is not a bot")
    if inspect.iscoroutinefunction(act) or inspect.isasyncgenfunction(act):
        # Bots are called, never awaited: an async act would hand back a coroutine.
        raise BotSpecError(
            f"{spec!r} has an async act(view): bots are called, not awaited; make it a plain def"
        )
    return cls


def make_bot(
    spec: str,
    seed: int | None = None,
    budget_ms: float | None = None,
    wait_for_solves: bool = True,
) -> Bot:
    """A bot for ``spec``, seeded where the class allows it, and given the decision budget
    ``budget_ms`` (milliseconds a decision may take; ``None``: none) where its constructor
    takes ``budget_ms`` (the hard bot does; a plug-in may). ``wait_for_solves=False``: a
    bot that would solve an endgame on first use does that in the background instead of
    before deciding (what a server or an interactive game wants; runs that must replay
    exactly wait)."""
    cls = load_bot_class(spec)
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        parameters = {}  # type: ignore[assignment]
    options: dict[str, object] = {}
    if "seed" in parameters:
        options["seed"] = seed
    if budget_ms is not None and "budget_ms" in parameters:
        options["budget_ms"] = budget_ms
    if not wait_for_solves and "wait_for_solves" in parameters:
        options["wait_for_solves"] = False
    try:
        bot = cls(**options)
    except Exception as error:
        # A user's class whose constructor needs more than these options, or raises:
        # one line naming it, whichever program asked for the bot.
        given = ", ".join(f"{key}={value!r}" for key, value in options.items())
        raise BotSpecError(
            f"bot {spec!r} could not be created: {cls.__name__}({given}) raised "
            f"{_one_line(error)}" + (CONSTRUCTOR_HINT if isinstance(error, TypeError) else "")
        ) from error
    if not isinstance(getattr(bot, "name", None), str):
        with contextlib.suppress(AttributeError):
            bot.name = spec.rpartition(":")[2] or spec
    return bot  # type: ignore[no-any-return]
