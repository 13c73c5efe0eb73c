"""Which client an address is, for the limits every layer keeps per client (the host's connections, the
web's turns and creations)."""

from __future__ import annotations

import ipaddress


def address_key(host: str) -> str:
    """The client an address belongs to, for limits: an IPv4 address, or an IPv6 /64.

    One home or one server is usually handed a whole /64, so counting its
    addresses one by one would let it rotate through 2**64 of them."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an IP address (a Unix socket, a test client): taken as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
