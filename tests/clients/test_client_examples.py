"""The Python client's examples, run as written against a real ``dudo serve``: the one in
docs/protocol.md ("A program in a seat") and the one in ``dudo.client``'s docstring (the
README's has a test of its own in test_client_play.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dudo.client
from serverkit import server_process, sqlite_url

ROOT = Path(__file__).parents[2]


def protocol_example() -> str:
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text[text.index("## A program in a seat") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def docstring_example() -> str:
    doc = dudo.client.__doc__ or ""
    block = doc[doc.index("::\n") + 3 :]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


@pytest.mark.parametrize("example", [protocol_example, docstring_example])
def test_the_example_runs_as_written(tmp_path: Path, example: object) -> None:
    code = example()  # type: ignore[operator]
    assert "asyncio.run(main())" in code and "http://localhost:8000" in code
    with server_process(sqlite_url(tmp_path)) as (base, _process):
        result = subprocess.run(
            [sys.executable, "-c", code.replace("http://localhost:8000", base)],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
    assert result.returncode == 0, result.stderr
    assert re.search(r"[0-9a-f]{16,}", result.stdout), result.stdout  # the game's id
