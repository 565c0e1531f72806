"""The home page's weight in a real browser (Debian's Chromium through Playwright).

What the browser itself counted, from the DevTools protocol: every request of a first visit
with an empty cache (the page, its modules, styles, strings, icon and API calls), the bytes
that came over the wire (``encodedDataLength``: headers and the body as sent, compressed or
not) and the bytes after decoding. Run with ``-s`` to see the figures (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser
from test_web import chromium

from serverkit import server_process, sqlite_url

HOME_BUDGET = 60_000  # bytes over the wire for the whole home page (issue 19)


@dataclass
class Weight:
    """What one page load cost: requests, bytes on the wire, bytes decoded, and each
    response's URL with its Content-Encoding."""

    requests: int = 0
    transferred: int = 0
    decoded: int = 0
    encodings: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        return (
            f"{self.requests} requests, {self.transferred:,} bytes transferred, "
            f"{self.decoded:,} bytes uncompressed"
        )


def page_weight(browser: Browser, url: str, ready: str, visits: int = 1) -> Weight:
    """Load ``url`` in a fresh context (empty cache) and add up what Chromium's network
    layer reports once ``ready`` (a selector) is on screen and the network is idle. With
    ``visits`` > 1 the page is opened again in the same context, its cache kept, and only
    the last visit is counted: what came over the network, not from the cache."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = context.new_page()
    session = context.new_cdp_session(page)
    weights = [Weight()]  # one per visit; the handlers add to the last
    urls: dict[str, str] = {}
    cached: set[str] = set()

    def response(event: dict[str, Any]) -> None:
        answer = event["response"]
        if (
            event["requestId"] in cached
            or answer.get("fromDiskCache")
            or answer.get("fromPrefetchCache")
        ):
            return
        urls[event["requestId"]] = answer["url"]
        headers = {key.lower(): value for key, value in answer["headers"].items()}
        weights[-1].encodings[answer["url"]] = headers.get("content-encoding", "")

    def received(event: dict[str, Any]) -> None:
        if event["requestId"] in urls:
            weights[-1].decoded += event["dataLength"]

    def finished(event: dict[str, Any]) -> None:
        if event["requestId"] in urls:
            weights[-1].requests += 1
            weights[-1].transferred += int(event["encodedDataLength"])

    session.on("Network.requestServedFromCache", lambda event: cached.add(event["requestId"]))
    session.on("Network.responseReceived", response)
    session.on("Network.dataReceived", received)
    session.on("Network.loadingFinished", finished)
    session.send("Network.enable")
    for visit in range(visits):
        if visit:
            weights.append(Weight())
        page.goto(url, wait_until="networkidle")
        page.wait_for_selector(ready)
        page.wait_for_load_state("networkidle")
    context.close()
    return weights[-1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("weight"))) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def test_home_page_fits_its_budget(server: str, browser: Browser) -> None:
    """The home page is at most 60 KB on the wire, its text files go compressed, and it
    does not load the table's modules."""
    weight = page_weight(browser, f"{server}/", "#quick")
    print(f"\nhome page: {weight.line()}")
    loaded = list(weight.encodings)
    assert not [url for url in loaded if url.endswith(("/table.js", "/gamelog.js"))], loaded
    assert weight.transferred <= HOME_BUDGET, weight.line()
    for url, encoding in weight.encodings.items():
        if url.endswith((".js", ".css", ".json", "/")) and "/api/" not in url:
            assert encoding in ("br", "gzip"), (url, encoding)


def test_a_second_visit_takes_the_files_from_the_cache(server: str, browser: Browser) -> None:
    """The versioned files are kept (immutable): coming back, the browser asks only for
    the page (no-cache: revalidated, 304) and the API, nothing under /static/."""
    weight = page_weight(browser, f"{server}/", "#quick", visits=2)
    print(f"\nhome page again: {weight.line()}")
    assert weight.requests >= 1, weight.line()
    assert not [url for url in weight.encodings if "/static/" in url], weight.encodings
