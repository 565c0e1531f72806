"""This machine's own addresses, and whether the server can listen where it was told.

``dudo serve --lan`` prints ``http://ADDRESS:PORT/`` for each address a friend's phone on
the same network could type, so it needs the machine's IPv4 addresses without asking
anybody on the network. Three ways, all local: each interface's address from the kernel
(Linux's ``SIOCGIFADDR``), the addresses the host name resolves to, and the source address
the routing table picks for the way out (a UDP "connection" sends no packet). If none of
them finds anything but the loopback, ``ip -j addr`` is read as a last resort.

:func:`check_listen` binds the socket the server is about to bind, so a mistyped
``--host`` (not this machine's) or a port already taken is one clear line before anything
starts, not a traceback from uvicorn.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import shutil
import socket
import struct
import subprocess
import sys
from collections.abc import Iterable

SIOCGIFADDR = 0x8915  # Linux: the IPv4 address of an interface, by name
ROUTE_PROBE = ("192.0.2.1", 9)  # TEST-NET-1: only the routing table is asked, nothing sent
ALL_INTERFACES = ("0.0.0.0", "::", "")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
# Bridges that containers and virtual machines on this computer sit behind: a friend's
# phone cannot reach them, so they are never offered (podman, Docker, libvirt, LXC/LXD).
VIRTUAL_BRIDGES = ("cni-podman", "podman", "docker", "br-", "virbr", "lxcbr", "lxdbr", "veth")


class ListenError(Exception):
    """The server cannot listen where it was told; ``exit_code`` 2 for a bad ``--host``
    (input), 1 for a machine that is not ready (the port is taken, no permission)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def is_all_interfaces(host: str) -> bool:
    return host in ALL_INTERFACES


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def shareable(addresses: Iterable[str], preferred: str | None = None) -> list[str]:
    """The IPv4 addresses worth giving a friend, best first: no loopback, no duplicates;
    the one on the default route first, then private (home network) addresses, then the
    rest, link-local ones (169.254.x.x, no DHCP answered) last."""
    found: dict[str, ipaddress.IPv4Address] = {}
    for text in addresses:
        try:
            address = ipaddress.ip_address(text.strip())
        except ValueError:
            continue
        if (
            isinstance(address, ipaddress.IPv4Address)
            and not address.is_loopback
            and not address.is_unspecified
            and not address.is_multicast
        ):
            found.setdefault(str(address), address)

    def rank(item: tuple[str, ipaddress.IPv4Address]) -> tuple[int, int]:
        text, address = item
        if text == preferred:
            order = 0
        elif address.is_link_local:
            order = 3
        elif address.is_private:
            order = 1
        else:
            order = 2
        return order, int(address)

    return [text for text, _ in sorted(found.items(), key=rank)]


def is_virtual_bridge(interface: str) -> bool:
    return interface.startswith(VIRTUAL_BRIDGES)


def interface_addresses() -> list[str]:
    """Each interface's primary IPv4 address, from the kernel (Linux only; elsewhere, or
    for an interface without one, nothing); container and VM bridges left out."""
    if not sys.platform.startswith("linux"):
        return []
    import fcntl

    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _index, name in socket.if_nameindex():
            if is_virtual_bridge(name):
                continue
            request = struct.pack("256s", name.encode()[:15])
            try:
                answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, request)
            except OSError:  # down, or no IPv4 address
                continue
            found.append(socket.inet_ntoa(answer[20:24]))
    return found


def host_name_addresses() -> list[str]:
    """What this machine's own name resolves to (from /etc/hosts or the local resolver;
    on Debian often only 127.0.1.1)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def route_address() -> str | None:
    """The source address of this machine's way out (its default route), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(ROUTE_PROBE)
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address == "0.0.0.0" else address


def parse_ip_json(text: str) -> list[str]:
    """The IPv4 addresses in the output of ``ip -j addr`` (every address, aliases too)."""
    try:
        interfaces = json.loads(text)
    except ValueError:
        return []
    found = []
    for interface in interfaces if isinstance(interfaces, list) else []:
        if isinstance(interface, dict) and is_virtual_bridge(str(interface.get("ifname", ""))):
            continue
        for info in interface.get("addr_info", []) if isinstance(interface, dict) else []:
            if isinstance(info, dict) and info.get("family") == "inet" and info.get("local"):
                found.append(str(info["local"]))
    return found


def ip_command_addresses() -> list[str]:
    """Addresses from ``ip -j addr`` (iproute2), if the command is there."""
    command = shutil.which("ip")
    if command is None:
        return []
    try:
        done = subprocess.run(
            [command, "-j", "-4", "addr"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return parse_ip_json(done.stdout)


def machine_addresses() -> list[str]:
    """This machine's IPv4 addresses a friend could use (see :func:`shareable`), found
    without any network traffic; empty for a machine on no network."""
    preferred = route_address()
    found = [*interface_addresses(), *host_name_addresses(), *([preferred] if preferred else [])]
    if not shareable(found):
        found += ip_command_addresses()
    return shareable(found, preferred)


def check_listen(host: str, port: int) -> None:
    """Bind ``host:port`` as uvicorn will (and let it go at once); raise
    :class:`ListenError` if that cannot work."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except socket.gaierror:
            raise ListenError(
                f"--host {host!r} is not an address or a known host name; use "
                "127.0.0.1 (this computer only), 0.0.0.0 or --lan (all its "
                "addresses)",
                2,
            ) from None
        except OSError as error:
            raise _listen_error(host, port, error) from None


def _listen_error(host: str, port: int, error: OSError) -> ListenError:
    if error.errno == errno.EADDRNOTAVAIL:
        own = ", ".join(["127.0.0.1", *machine_addresses()])
        return ListenError(
            f"--host {host} is not an address of this machine (it has {own}); "
            "use one of those, or 0.0.0.0 or --lan for all of them",
            2,
        )
    if error.errno == errno.EADDRINUSE:
        return ListenError(
            f"port {port} is already in use on {host or 'this machine'} "
            f"(another dudo serve?); stop that server or choose another "
            "--port",
            1,
        )
    if error.errno == errno.EACCES:
        hint = (
            ": ports below 1024 need root or CAP_NET_BIND_SERVICE; use 8000 behind a proxy"
            if port < 1024
            else ""
        )
        return ListenError(f"no permission to listen on port {port}{hint}", 1)
    return ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}", 1)
