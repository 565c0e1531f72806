"""What ``dudo serve`` says once it listens: where to open it, what to share, which
database, how to stop.

On a terminal it is a few lines for a person, with a QR code of the address to share when
it serves a party (``--lan``), so a phone's camera opens the game; in JSON logs it is one
``listening`` event with the same facts. Listening on all interfaces is always said in so
many words. The database and Redis are shown without their passwords.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, field
from typing import Any

from dudo.server.host.addresses import is_all_interfaces, is_loopback
from dudo.server.logs import log_event, redact

log = logging.getLogger("dudo.server")

LABEL = 10  # width of the left column


def url_of(host: str, port: int) -> str:
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def qr_code(text: str) -> str:
    """``text`` as a QR code drawn with block characters, two modules a character (light
    modules drawn, dark ones left blank: phones read it on a dark terminal, and on a light
    one as an inverted code)."""
    import segno

    out = io.StringIO()
    segno.make(text, micro=False).terminal(out=out, compact=True, border=2)
    return out.getvalue().rstrip("\n")


@dataclass
class Banner:
    """The facts of one start (picklable: a ``--workers`` node shows it when it is up)."""

    version: str
    host: str
    port: int
    database: str  # already without its password
    cluster: str | None = None  # likewise
    workers: int = 1
    lan: bool = False
    addresses: list[str] = field(default_factory=list)  # this machine's, to share
    log_format: str = "text"

    @property
    def everywhere(self) -> bool:
        return is_all_interfaces(self.host)

    def share_urls(self) -> list[str]:
        """The addresses friends can type: each of this machine's on all interfaces, the
        one it listens on otherwise; none for the loopback."""
        if self.everywhere:
            return [url_of(address, self.port) for address in self.addresses]
        if is_loopback(self.host):
            return []
        return [url_of(self.host, self.port)]

    def local_url(self) -> str:
        if self.everywhere or self.host in ("127.0.0.1", "localhost"):
            return url_of("localhost", self.port)
        return url_of(self.host, self.port)

    def fields(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "host": self.host,
            "port": self.port,
            "all_interfaces": self.everywhere,
            "urls": self.share_urls(),
            "local_url": self.local_url(),
            "database": self.database,
            "cluster": self.cluster,
            "workers": self.workers if self.workers > 1 else None,
        }

    def text(self) -> str:
        lines = []

        def row(label: str, value: str) -> None:
            lines.append(f"  {label:<{LABEL}} {value}".rstrip())

        shared = self.share_urls()
        if self.everywhere:
            where = f"[{self.host}]" if ":" in self.host else self.host or "0.0.0.0"
            lines.append(
                f"dudo {self.version} is listening on all interfaces "
                f"({where}:{self.port}): anyone who can reach this computer can "
                "play"
            )
            if shared:
                for number, url in enumerate(shared):
                    row("share" if number == 0 else "", url)
            else:
                row(
                    "share",
                    "this computer has no network address yet: join a network "
                    "(Wi-Fi) and start again",
                )
            if self.lan and shared:
                row("phones", "on the same Wi-Fi, scan this to open the first address:")
                lines.extend(f"  {line}" for line in qr_code(shared[0]).splitlines())
                row(
                    "no luck?",
                    f"not a guest network, and let port {self.port} through "
                    "this computer's firewall",
                )
            row("here", self.local_url())
        elif shared:
            lines.append(f"dudo {self.version} is listening on {self.host}:{self.port}")
            row("share", shared[0])
        else:
            lines.append(f"dudo {self.version} is running, for this computer only")
            row("open", self.local_url())
            row(
                "friends", "for phones on your Wi-Fi, stop it and run dudo serve --lan (make party)"
            )
        row("database", self.database)
        if self.cluster:
            nodes = f", {self.workers} nodes" if self.workers > 1 else ""
            row("cluster", f"{self.cluster}{nodes}")
        row("stop", "Ctrl-C")
        return redact("\n".join(lines))

    def show(self) -> None:
        """Say it: the lines on standard output for a person, or one JSON event."""
        if self.log_format == "text":
            print(self.text(), flush=True)
        else:
            log_event(
                log,
                "listening",
                **{key: value for key, value in self.fields().items() if value is not None},
            )
