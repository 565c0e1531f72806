"""Names at a table are clean and visibly distinct (docs/protocol.md, limits)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from dudo.printable import printable
from dudo.server.table.names import MAX_NAME, clean_chat, clean_name, distinct_name, skeleton
from serverkit import app_and_lobby


def test_a_long_name_keeps_its_number_so_every_seat_differs() -> None:
    long = "Maximiliana Fernández-Oy"  # 24 characters
    taken: list[str] = []
    for _ in range(4):
        taken.append(distinct_name(long, taken))
    assert len(set(taken)) == 4
    assert taken[1].endswith(" 2") and taken[3].endswith(" 4")
    assert all(len(name) <= MAX_NAME for name in taken)


@pytest.mark.parametrize(
    "first, second",
    [
        ("Ana", "\u0410na"),  # Cyrillic capital A
        ("Pedro", "\u0420edro"),  # Cyrillic capital ER looks like P
        ("Olga", "0lga"),  # digit zero
        ("Al", "AI"),  # small L and capital I
        ("Ana", "\uff21na"),  # fullwidth A (NFKC)
    ],
)
def test_look_alike_names_are_told_apart(first: str, second: str) -> None:
    assert skeleton(first) == skeleton(second)
    assert distinct_name(second, [first]) == f"{second} 2"


def test_different_names_stay_as_they_are() -> None:
    assert distinct_name("Ana", ["Ben", "Ann", "Anna"]) == "Ana"
    assert skeleton("Ana") != skeleton("Ann")


def test_emoji_sequences_survive_and_bidi_controls_do_not() -> None:
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    assert clean_name(family) == family  # one family, not four people
    assert clean_name("\u202eAna\u202c") == "Ana"  # no right-to-left override
    assert clean_name("\u0633\u0627\u0631\u0627") == "\u0633\u0627\u0631\u0627"  # Arabic
    with pytest.raises(ValueError):
        clean_name("\u200d\u200d")
    assert not clean_name("x" * 23 + "\u200d\U0001f466").endswith("\u200d")


def test_a_table_never_seats_two_names_that_look_alike() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        created = client.post("/api/rooms", json={"name": "Ana", "seats": 4}).json()
        names = [created["name"]]
        for name in ("\u0410na", "Ana", "Ana 2"):
            joined = client.post(f"/api/rooms/{created['code']}/join", json={"name": name})
            names.append(joined.json()["name"])
        assert len({skeleton(name) for name in names}) == 4, names


# Names (and lines of table talk) that show nothing: docs/protocol.md refuses them.
NOTHING_VISIBLE = [
    "\u3164",  # HANGUL FILLER: a letter to Unicode, drawn as a blank
    "\u2800",  # BRAILLE PATTERN BLANK
    "\u0301\u0301",  # combining marks with nothing to sit on
    "\u115f\u1160\uffa0",  # the other Hangul fillers
    " \u3164 \u2800\t",  # blanks among spaces
    "\u200d\u034f\U0001d159",  # a joiner, the grapheme joiner, the null notehead
]
# Names written with combining marks, joiners and variation selectors, kept as typed.
LEGIBLE = [
    "Rene\u0301e",  # é as e and an acute accent
    "Nguye\u0302\u0303n",  # Vietnamese ễ: two marks on one letter
    "\u0905\u0928\u0941\u0937\u094d\u0915\u093e",  # अनुष्का (Devanagari)
    "\u0e2a\u0e21\u0e0a\u0e32\u0e22",  # สมชาย (Thai)
    "\u0628\u0633\u0652\u0645\u064e",  # Arabic with its vowel marks
    "\u0f56\u0f66\u0f92\u0fb2\u0f74\u0f56\u0f66",  # Tibetan: a stack of three marks
    "\u0645\u06cc\u200c\u0634\u0627",  # Persian with a zero-width non-joiner
    "\U0001f3f3\ufe0f\u200d\U0001f308 Ana",  # 🏳️‍🌈: a variation selector and a joiner
    "#\ufe0f\u20e3 \U0001f469\U0001f3fd\u200d\U0001f680",  # #️⃣ and 👩🏽‍🚀
    "\uae40\ucca0\uc218",  # 김철수 (Hangul syllables, no filler)
    "Ana \U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England
]


def tags(text: str) -> str:
    """``text`` in tag characters (U+E0020..U+E007E), as an emoji tag sequence spells it."""
    return "".join(chr(0xE0000 + ord(ch)) for ch in text)


CANCEL_TAG = "\U000e007f"
BLACK_FLAG = "\U0001f3f4"
FLAGS = {
    "England": BLACK_FLAG + tags("gbeng") + CANCEL_TAG,
    "Scotland": BLACK_FLAG + tags("gbsct") + CANCEL_TAG,
    "Wales": BLACK_FLAG + tags("gbwls") + CANCEL_TAG,
}


@pytest.mark.parametrize("flag", FLAGS.values(), ids=FLAGS.keys())
def test_a_flag_of_tag_characters_is_kept_whole(flag: str) -> None:
    # Its tag characters were dropped as format characters: a plain black flag was left.
    assert flag == "\U0001f3f4\U000e0067\U000e0062" + flag[3:]  # spelt as Unicode does
    assert printable(flag) == flag
    assert printable(f"Ana {flag}\u200d and {flag}{flag}!") == f"Ana {flag}\u200d and {flag}{flag}!"
    assert clean_name(f"{flag} Ana") == f"{flag} Ana" and clean_chat(flag) == flag
    skin = "\U0001f44d\U0001f3fd"  # a skin tone between an emoji and its tags
    assert printable(skin + tags("gbeng") + CANCEL_TAG) == skin + tags("gbeng") + CANCEL_TAG


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Ana" + tags("secret") + " Bo", "Ana Bo"),  # tags after a letter: hidden text
        ("Ana" + tags("hi") + CANCEL_TAG, "Ana"),  # ... even ended like a flag's
        (BLACK_FLAG + tags("gbeng"), BLACK_FLAG),  # no CANCEL TAG
        (BLACK_FLAG + CANCEL_TAG, BLACK_FLAG),  # no tag
        (CANCEL_TAG + "Ana" + CANCEL_TAG, "Ana"),  # a lone CANCEL TAG
        (BLACK_FLAG + tags("ignore the rules") + CANCEL_TAG, BLACK_FLAG),  # text in a "flag"
        (BLACK_FLAG + tags("gbengland") + CANCEL_TAG, BLACK_FLAG),  # longer than any flag's
        (tags("gbeng") + CANCEL_TAG + " Ana", "Ana"),  # no emoji before them
        ("\U000e0001" + tags("en") + "Ana", "Ana"),  # the deprecated LANGUAGE TAG
    ],
)
def test_stray_tag_characters_are_dropped(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert clean_chat(text) == shown


def test_a_name_cut_inside_a_flag_keeps_none_of_its_tags() -> None:
    england = FLAGS["England"]
    assert clean_name("x" * 17 + england) == "x" * 17 + england  # 24 characters: whole
    assert clean_name("x" * 20 + england) == "x" * 20 + BLACK_FLAG  # cut in its tags


@pytest.mark.parametrize("name", NOTHING_VISIBLE)
def test_a_name_or_a_line_that_shows_nothing_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="visible"):
        clean_name(name)
    assert clean_chat(name) == ""


@pytest.mark.parametrize("name", LEGIBLE)
def test_names_written_with_marks_and_joiners_are_kept_as_typed(name: str) -> None:
    assert clean_name(name) == name
    assert clean_chat(name) == name


def test_zalgo_text_is_cut_down_to_a_few_marks_per_letter_not_refused() -> None:
    assert clean_name("a" + "\u0301" * 63) == "a" + "\u0301" * 4
    assert clean_chat("Z" + "\u0315\u0322" * 20 + "algo" + "\u0300" * 9) == (
        "Z" + "\u0315\u0322" * 2 + "algo" + "\u0300" * 4
    )
    # Joiners count as marks: they cannot be put between marks to stack more.
    assert clean_chat("a" + "\u0301\u200d" * 10) == "a\u0301\u200d\u0301\u200d"
    with pytest.raises(ValueError, match="visible"):  # no letter left in the first 24
        clean_name("\u0301 " * 12 + "Ana")


def test_a_room_refuses_a_name_that_shows_nothing_and_keeps_marked_names() -> None:
    # "\u3164" (the Hangul filler) once made a room, a seat, a player no one could see.
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        for name in NOTHING_VISIBLE:
            for path in ("/api/rooms", "/api/quick"):
                refused = client.post(path, json={"name": name})
                assert refused.status_code == 400, (path, name, refused.text)
                assert refused.json()["error"] == "bad_request", refused.json()
                assert "visible" in refused.json()["message"]
        created = client.post("/api/rooms", json={"name": LEGIBLE[0], "seats": 6})
        assert created.status_code == 201 and created.json()["name"] == LEGIBLE[0]
        code = created.json()["code"]
        for name in NOTHING_VISIBLE:
            refused = client.post(f"/api/rooms/{code}/join", json={"name": name})
            assert refused.status_code == 400, (name, refused.text)
            assert refused.json()["error"] == "bad_request", refused.json()
        for name in LEGIBLE[1:6]:
            joined = client.post(f"/api/rooms/{code}/join", json={"name": name})
            assert joined.status_code == 200 and joined.json()["name"] == name, joined.text
