"""Every mistake the analysis can mark has a sentence in each language of the web page:
the codes are read from analysis.py itself (every ``decision.mistake = "..."``), so a new
code without its sentences fails here; each sentence uses only the parameters the JSON
gives with that code, and the English one says what the server's ``text`` says."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import dudo.bots.analysis as analysis
from dudo.bids import Bid
from dudo.bots.analysis import MISTAKES, Decision, Odds
from dudo.game import DUDO

LOCALES = Path(analysis.__file__).parents[1] / "web" / "locales"
LANGUAGES = ("en", "de", "es")


def emitted_codes() -> set[str]:
    """The strings analysis.py assigns to a decision's ``mistake`` (or ``_mistake`` returns
    for it)."""
    tree = ast.parse(Path(analysis.__file__).read_text())
    codes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "mistake"
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                ):
                    codes.add(node.value.value)
        if isinstance(node, ast.FunctionDef) and node.name == "_mistake":  # its answers
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Return)
                    and isinstance(inner.value, ast.Constant)
                    and isinstance(inner.value.value, str)
                ):
                    codes.add(inner.value.value)
    return codes


def decision(code: str) -> Decision:
    odds = Odds(own=1, unseen=8, chance=1 / 3, holds=0.83, exact=0.2)
    low = Odds(own=0, unseen=8, chance=1 / 3, holds=0.07, exact=0.05)
    made = Decision(
        round=1,
        index=1,
        seat=0,
        action=DUDO if code == "call_on_likely_bid" else Bid(7, 3),
        kind="dudo" if code == "call_on_likely_bid" else "raise",
        standing=Bid(3, 3),
        standing_odds=odds,
        bid_odds=None if code == "call_on_likely_bid" else low,
        risk=0.5,
        ev=-0.5,
        hard=None,
        hard_ev=0.0,
        best_alternative=0.79,
        hard_share=None,
        standing_count=3,
        after=None,
        after_count=None,
        wild_after=True,
    )
    made.mistake = code
    return made


def test_the_list_of_codes_is_every_code_the_analysis_marks() -> None:
    codes = emitted_codes()
    assert codes, "no mistake codes found in analysis.py"
    assert codes == set(MISTAKES)


def pct(x: float) -> str:
    """As the page prints a chance (replaywords.js pct)."""
    if 0 < x < 0.005:
        return "<1%"
    if 0.995 < x < 1:
        return ">99%"
    return f"{round(x * 100)}%"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_code_has_a_sentence_with_its_parameters(language: str) -> None:
    strings = json.loads((LOCALES / f"{language}.json").read_text())
    for code in emitted_codes():
        key = f"rp.mistake.{code}"
        assert isinstance(strings.get(key), str) and strings[key].strip(), (language, key)
        said = decision(code).to_json()["mistake"]
        assert said["code"] == code and said["text"]
        params = said["params"]
        assert isinstance(params, dict) and params, said
        placeholders = set(re.findall(r"\{(\w+)\}", strings[key]))
        assert placeholders == set(params), (language, key, placeholders, params)
        if language == "en":  # the page's English is the server's sentence
            filled = strings[key]
            for name, value in params.items():
                filled = filled.replace(f"{{{name}}}", pct(value))
            assert filled == said["text"], (filled, said["text"])


def test_no_mistake_has_no_parameters() -> None:
    clean = decision("long_shot")
    clean.mistake = None
    assert clean.to_json()["mistake"] is None
