"""The layers point one way (../shared/DESIGN.md): the engine touches no I/O, clock,
asyncio or global randomness, and imports nothing above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "src" / "dudo"
ENGINE = ["bids", "hands", "rolloff", "rules", "game", "dice", "view", "scenario", "rules_text"]
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
    """Functions over 120 lines and classes over 400 in src/dudo, unless their docstring
    says why (a paragraph starting "Long on purpose:")."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            limit = LONGEST_CLASS if isinstance(node, ast.ClassDef) else LONGEST_FUNCTION
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit and LONG_ON_PURPOSE not in (ast.get_docstring(node) or ""):
                found.append(
                    f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({length} lines)"
                )
    return found


def test_no_function_or_class_is_longer_than_a_reader_can_hold_without_a_reason() -> None:
    assert long_definitions() == []
