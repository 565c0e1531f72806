"""morph.js, the table's incremental drawing, in a real browser (Debian's Chromium through
Playwright, as tests/browser/test_web.py): the module itself, imported into a page of a real
server, on markup made for each case.

A keyed node (``data-key``) whose markup is unchanged since it was drawn is left as it is
without comparing it node by node (bench/page_draw.py: a quarter of the page's script per
state). These check that skipping never leaves the page showing something else than the
markup: a node that other code changed since (a placed bubble, a title, a ticking clock) is
drawn again, at once or later; a changed node inside or around an unchanged one is drawn; a
form field still follows what is drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import TIMINGS, chromium

from serverkit import server_process, sqlite_url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("morph")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(server: str, browser: Browser) -> Iterator[Page]:
    """A page of the server with morph() at window.morph and an empty #root to draw in."""
    page = browser.new_page()
    page.goto(server + "/rules")
    page.evaluate(
        """async () => {
        window.morph = (await import('/static/js/morph.js')).morph;
        const root = document.createElement('div');
        root.id = 'root';
        document.body.append(root);
    }"""
    )
    yield page
    page.close()


def draw(page: Page, html: str) -> Any:
    page.evaluate("(html) => window.morph(document.getElementById('root'), html)", html)
    return page.evaluate("document.getElementById('root').innerHTML")


LOG = '<ol data-key="log"><li data-key="r1"><b>Ana</b> 2 × ⚂</li><li data-key="r2">Bo</li></ol>'


def test_unchanged_markup_keeps_every_node(page: Page) -> None:
    assert draw(page, LOG + "<p>turn 1</p>") == LOG + "<p>turn 1</p>"
    page.evaluate("window.first = document.querySelector('[data-key=r1] b')")
    assert draw(page, LOG + "<p>turn 2</p>") == LOG + "<p>turn 2</p>"
    assert page.evaluate("document.querySelector('[data-key=r1] b') === window.first")


@pytest.mark.parametrize(
    "change",
    [
        "node.setAttribute('title', 'Ana')",  # a cut name titled
        "node.style.left = '12px'",  # a bubble placed
        "node.firstChild.textContent = 'Zed'",  # a clock ticking
        "node.append(document.createElement('i'))",  # something added
        "node.querySelector('b').remove()",  # something taken away
    ],
)
@pytest.mark.parametrize("when", ["later", "at once"])
def test_a_node_changed_by_other_code_is_drawn_again(page: Page, change: str, when: str) -> None:
    """Changed by other code after a drawing, a keyed node with the same markup is drawn
    again from it: on the next drawing whether the change was seen by the page's observer
    already ("later", after a task) or not ("at once", in the same task as both drawings)."""
    draw(page, LOG)
    same = page.evaluate(
        """([change, atOnce, html]) => new Promise((done) => {
        const root = document.getElementById('root');
        new Function('node', change)(document.querySelector('[data-key=r1]'));
        const again = () => { window.morph(root, html); done(root.innerHTML); };
        if (atOnce) again(); else setTimeout(again, 50);
    })""",
        [change, when == "at once", LOG],
    )
    assert same == LOG


def test_a_change_inside_an_unchanged_key_is_drawn(page: Page) -> None:
    """The log's list changed, one of its rounds not: the new round is drawn, the old one's
    node kept."""
    draw(page, LOG)
    page.evaluate("window.kept = document.querySelector('[data-key=r1]')")
    grown = LOG.replace("</ol>", '<li data-key="r3">Cy</li></ol>')
    assert draw(page, grown) == grown
    assert page.evaluate("document.querySelector('[data-key=r1]') === window.kept")
    changed = grown.replace(">Bo<", ">Bo, 3 × ⚄<")
    assert draw(page, changed) == changed


def test_a_field_in_a_keyed_node_follows_what_is_drawn(page: Page) -> None:
    """A node holding a form field is always compared: a box ticked and a field typed in
    (properties, which no observer sees) come back to the drawn values, as before."""
    form = (
        '<section data-key="rules"><label><input type="checkbox" id="box"> Calza</label>'
        '<input id="name" value="Ana"></section>'
    )
    draw(page, form)
    page.evaluate(
        """() => { document.getElementById('box').checked = true;
                   document.getElementById('name').value = 'typed'; }"""
    )
    draw(page, form)
    assert page.evaluate("document.getElementById('box').checked") is False
    assert page.evaluate("document.getElementById('name').value") == "Ana"


def test_each_root_is_watched_on_its_own(page: Page) -> None:
    """Drawn into another root, the same keys are drawn afresh (each root has its own
    observer; a node's markup is remembered per node)."""
    draw(page, LOG)
    other = page.evaluate(
        """(html) => { const other = document.createElement('div');
        document.body.append(other); window.morph(other, html);
        other.querySelector('[data-key=r2]').textContent = 'changed';
        window.morph(other, html); return other.innerHTML; }""",
        LOG,
    )
    assert other == LOG
