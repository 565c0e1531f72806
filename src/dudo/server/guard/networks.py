"""Addresses grouped by network, so a crowd of addresses counts as the few networks it
comes from: 220 addresses (a botnet, or one IPv6 /64 that hands out billions) once filled
the site's 2,000 lobbies in 15 s, each address within its own limits.

An IPv4 address counts as its /24 and an IPv6 address as its /64 by default (an
IPv4-mapped IPv6 address as the IPv4 one); ``dudo serve`` reads DUDO_IPV4_PREFIX and
DUDO_IPV6_PREFIX. Anything that is not an IP address (a test's made-up client, a Unix
socket) is a group of its own.
"""

from __future__ import annotations

import ipaddress


def network_of(address: str, ipv4_prefix: int = 24, ipv6_prefix: int = 64) -> str:
    """The network ``address`` belongs to, as text (``203.0.113.0/24``)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = ipv4_prefix if ip.version == 4 else ipv6_prefix
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
