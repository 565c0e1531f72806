"""Where friends can reach the server (GET /api/share) and the share panel's QR code for
those addresses: a host whose own page is on localhost must hand out an address a phone on
the same Wi-Fi can open, not ``http://localhost``."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from test_web_assets import new_room, segno_svg

from dudo.server.host.nodes import Launch, settings_for
from serverkit import app_and_lobby

LAN = "http://192.168.1.20:8000"


def test_a_server_on_all_interfaces_names_its_addresses_and_draws_them() -> None:
    app, _ = app_and_lobby(share_origins=(LAN,))
    with TestClient(app, base_url="http://localhost:8000") as client:
        answer = client.get("/api/share")
        assert answer.status_code == 200
        assert answer.json() == {"origins": [LAN]}
        assert answer.headers["cache-control"] == "no-store"
        code = new_room(client)
        # The page is on localhost, yet its QR code may carry the address friends open.
        drawn = client.get(f"/r/{code}/qr.svg", params={"origin": LAN})
        assert drawn.status_code == 200, drawn.text
        assert drawn.content == segno_svg(f"{LAN}/r/{code}")
        # Any other origin is still refused: the image never shows a stranger's site.
        for other in ("http://192.168.1.21:8000", "http://evil.example"):
            refused = client.get(f"/r/{code}/qr.svg", params={"origin": other})
            assert refused.status_code == 400, other
            assert refused.json()["error"] == "bad_request"


def test_a_server_for_this_computer_only_has_nothing_to_share() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        assert client.get("/api/share").json() == {"origins": []}


def test_dudo_serve_hands_its_addresses_to_every_worker_s_settings() -> None:
    launch = Launch(host="0.0.0.0", port=8000, database="memory://", share_origins=[LAN])
    assert settings_for(launch, None).share_origins == (LAN,)


def test_dudo_share_origins_names_what_to_share_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUDO_SHARE_ORIGINS", "http://Laptop.local:8000/, http://203.0.113.9:80")
    launch = Launch(host="0.0.0.0", port=8000, database="memory://", share_origins=[LAN])
    assert settings_for(launch, None).share_origins == (
        "http://laptop.local:8000",
        "http://203.0.113.9:80",
    )
    monkeypatch.setenv("DUDO_SHARE_ORIGINS", "laptop.local")
    with pytest.raises(ValueError, match=r"DUDO_SHARE_ORIGINS: 'laptop\.local' is not an origin"):
        settings_for(launch, None)
