"""The layers point one way (docs/architecture.md): the engine touches no I/O, clock,
asyncio or global randomness, and imports nothing above it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "src" / "dudo"
ENGINE = [
    *("bids", "hands", "rolloff", "rules", "game", "dice", "view", "scenario", "rules_text"),
    "refusals",
    "printable",
]
FORBIDDEN_IN_ENGINE = {
    "asyncio",
    "socket",
    "sqlite3",
    "time",
    "datetime",
    "os",
    "threading",
    "subprocess",
    "secrets",
    "urllib",
    "http",
    "typer",
    "rich",
}
UPPER_LAYERS = {
    "dudo.bots",
    "dudo.store",
    "dudo.server",
    "dudo.client",
    "dudo.tui",
    "dudo.cli",
    "dudo.cli_help",
    "dudo.background",
    "dudo.openspiel",
    "dudo.profiles",
}


def imports_of(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("module", ENGINE)
def test_engine_module_does_no_io_and_imports_no_upper_layer(module: str) -> None:
    imported = imports_of(module)
    roots = {name.split(".")[0] for name in imported}
    assert not roots & FORBIDDEN_IN_ENGINE, roots & FORBIDDEN_IN_ENGINE
    assert not {
        name
        for name in imported
        if any(name == upper or name.startswith(upper + ".") for upper in UPPER_LAYERS)
    }


def test_only_the_dice_module_uses_random_and_only_through_generator_objects() -> None:
    for module in ENGINE:
        source = (PACKAGE / f"{module}.py").read_text()
        if module == "dice":
            tree = ast.parse(source)
            used = {
                node.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            }
            assert used <= {"Random", "SystemRandom"}, used
        else:
            assert "random" not in imports_of(module)


# -- sizes a reader can hold in mind -------------------------------------------------------

LONGEST_FUNCTION = 120
LONGEST_CLASS = 400
LONG_ON_PURPOSE = "Long on purpose:"


def long_definitions() -> list[str]:
    """Functions over 120 lines and classes over 400 in src/dudo (their bodies, docstring
    included), unless their docstring says why (a paragraph starting "Long on purpose:")."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            limit = LONGEST_CLASS if isinstance(node, ast.ClassDef) else LONGEST_FUNCTION
            # The body: a command's options (one per line) are declarations, not steps.
            length = (node.end_lineno or node.lineno) - node.body[0].lineno + 1
            if length > limit and LONG_ON_PURPOSE not in (ast.get_docstring(node) or ""):
                found.append(
                    f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({length} lines)"
                )
    return found


def test_no_function_or_class_is_longer_than_a_reader_can_hold_without_a_reason() -> None:
    assert long_definitions() == []


# -- the browser client (docs/web.md) -------------------------------------------------------

CLIENT = PACKAGE / "web" / "js"
LONGEST_CLIENT_MODULE = 400  # lines of one module of the browser client
# What the home page loads (app.js, then lobby.js): none of the table's or the replay's
# modules, which app.js imports only when it shows a table (test_web_weight.py weighs it).
HOME_MODULES = {"app.js", "lobby.js", "page.js", "profile.js", "i18n.js", "dice.js", "morph.js"}
HOME_MODULES.add("rooms.js")  # the presets and house rules, shared with the host's settings


def client_imports(module: str) -> set[str]:
    """The modules ``module`` imports statically (``import ... from './x.js'``), not the
    ones it loads when needed (``import('./x.js')``)."""
    text = (CLIENT / module).read_text()
    return set(re.findall(r"^import\s[^;]*?\bfrom\s+'\./([\w.]+)';", text, re.M | re.S))


@pytest.mark.parametrize("path", sorted(CLIENT.glob("*.js")), ids=lambda p: p.name)
def test_no_module_of_the_browser_client_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= LONGEST_CLIENT_MODULE, f"{path.name}: {lines} lines"


def test_the_home_page_loads_none_of_the_tables_modules() -> None:
    loaded: set[str] = set()
    waiting = ["app.js", "lobby.js"]
    while waiting:
        module = waiting.pop()
        if module not in loaded:
            loaded.add(module)
            waiting.extend(client_imports(module))
    assert loaded == HOME_MODULES, loaded ^ HOME_MODULES


# -- the server's seams (docs/architecture.md) ----------------------------------------------

SERVER = PACKAGE / "server"
# What each part of dudo.server may import of the others: the arrows point one way.
SERVER_MAY_IMPORT = {
    "protocol": set(),
    "logs": set(),
    "outage": {"logs"},
    "tasks": {"logs"},
    "collector": {"logs"},
    "guard": {"logs"},
    "table": {"protocol", "logs", "outage", "tasks"},
    "site": {"table", "guard", "protocol", "logs", "outage", "tasks"},
    "cluster": {"site", "table", "guard", "protocol", "logs", "outage", "tasks"},
    "web": {
        *("cluster", "site", "table", "guard", "protocol", "logs", "outage", "tasks"),
        "collector",
    },
    "host": {
        *("web", "cluster", "site", "table", "guard", "protocol", "logs", "outage", "tasks"),
        "collector",
    },
}
# The table and the site know no transport: no HTTP framework, no Redis (the guard may:
# it reads handshakes and proxy headers).
NO_TRANSPORT = {"table", "site"}


def server_part(path: Path) -> str:
    relative = path.relative_to(SERVER)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def server_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(
    "path",
    sorted(p for p in SERVER.rglob("*.py") if p.parent != SERVER or p.stem != "__init__"),
    ids=lambda p: str(p.relative_to(SERVER)),
)
def test_each_part_of_the_server_imports_only_the_parts_below_it(path: Path) -> None:
    part = server_part(path)
    imported = server_imports(path)
    parts = {
        name.removeprefix("dudo.server.").split(".")[0]
        for name in imported
        if name.startswith("dudo.server.")
    }
    assert parts - {part} <= SERVER_MAY_IMPORT[part], parts - {part} - SERVER_MAY_IMPORT[part]
    if part in NO_TRANSPORT:
        roots = {name.split(".")[0] for name in imported}
        assert not roots & {"starlette", "uvicorn", "redis", "httpx"}, roots
