"""Which web addresses the paper's ``fetch`` and ``read_pdf`` tools may reach.

The tools are a web client driven by a model that reads untrusted pages: a page can ask it to
fetch ``http://169.254.169.254/`` (a cloud's metadata service, which hands out credentials),
``http://localhost:8888/`` (a notebook server) or a printer on the local network. So an address
is reached only when it is a public internet address: loopback, private, link-local, shared
(carrier-grade NAT), multicast, unspecified, reserved, documentation and cloud-metadata
addresses are refused, in IPv4 and IPv6, including IPv6 addresses that carry an IPv4 address
(IPv4-mapped ``::ffff:127.0.0.1``, 6to4 ``2002::/16``, NAT64 ``64:ff9b::/96``).

The check is made on the *resolved* address, the one the connection then goes to
(:mod:`sgr_kit.run.web` resolves a host name once and connects to that address, so a name
that resolves to a public address for the check and to a private one for the connection gains
nothing), and again for every redirect. Host spellings (``0x7f.1``, ``2130706433``,
``0177.0.0.1``, ``127.1``) are normalized by the WHATWG URL parser first, as a browser does.

Setting the environment variable :data:`ALLOW_PRIVATE_ENV` (``SGR_FETCH_ALLOW_PRIVATE=1``)
turns the check off: for tests on a loopback server, or a deliberate local mirror.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Union

from ada_url import URL

from ..errors import SgrKitError

__all__ = [
    "ALLOW_PRIVATE_ENV",
    "WebError",
    "allow_private",
    "blocked_reason",
    "check_address",
    "parse_web_url",
]

#: The environment variable that lets ``fetch`` and ``read_pdf`` reach loopback, private and
#: other non-public addresses when set to ``1`` (or ``true``/``yes``).
ALLOW_PRIVATE_ENV = "SGR_FETCH_ALLOW_PRIVATE"

Address = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]


class WebError(SgrKitError):
    """A web request of the paper's tools failed: the message is one the model may see.

    It names the URL (or the query) and what went wrong: an address refused, a timeout, an HTTP
    status, a page too large, a file that is not what the tool reads. The inspect tools turn it
    into a ``ToolError`` (the model reads it and goes on), the MCP server into an error result.
    """


# Cloud providers' metadata services (they hand out credentials to whoever asks): named in the
# message, though each also lies in a refused range below.
_METADATA = {
    ipaddress.ip_address("169.254.169.254"): "a cloud metadata address",  # AWS, GCP, Azure, OpenStack
    ipaddress.ip_address("169.254.170.2"): "a cloud metadata address",  # AWS ECS task metadata
    ipaddress.ip_address("fd00:ec2::254"): "a cloud metadata address",  # AWS IMDS over IPv6
    ipaddress.ip_address("100.100.100.200"): "a cloud metadata address",  # Alibaba Cloud
    ipaddress.ip_address("192.0.0.192"): "a cloud metadata address",  # Oracle Cloud
}

# IANA's special-purpose address registries (RFC 6890 and its updates), each range with the
# word the refusal uses. Python's ``is_global`` is consulted as well, as a net under this list.
_REFUSED = [(ipaddress.ip_network(net), why) for net, why in [
    ("0.0.0.0/8", "an unspecified ('this network') address"),
    ("10.0.0.0/8", "a private address"),
    ("100.64.0.0/10", "a shared (carrier-grade NAT) address"),
    ("127.0.0.0/8", "a loopback address"),
    ("169.254.0.0/16", "a link-local address"),
    ("172.16.0.0/12", "a private address"),
    ("192.0.0.0/24", "an IETF protocol address"),
    ("192.0.2.0/24", "a documentation address"),
    ("192.88.99.0/24", "a 6to4 relay address"),
    ("192.168.0.0/16", "a private address"),
    ("198.18.0.0/15", "a benchmarking address"),
    ("198.51.100.0/24", "a documentation address"),
    ("203.0.113.0/24", "a documentation address"),
    ("224.0.0.0/4", "a multicast address"),
    ("240.0.0.0/4", "a reserved address"),
    ("::/128", "an unspecified address"),
    ("::1/128", "a loopback address"),
    ("::/96", "an IPv4-compatible (deprecated) address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address"),
    ("100::/64", "a discard address"),
    ("2001::/32", "a Teredo address"),
    ("2001:2::/48", "a benchmarking address"),
    ("2001:db8::/32", "a documentation address"),
    ("fc00::/7", "a private (unique local) address"),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local (deprecated) address"),
    ("ff00::/8", "a multicast address"),
]]  # fmt: skip
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (IPv4-mapped, 6to4, NAT64), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _address(value: str | Address) -> Address:
    if isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        return value
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return ipaddress.ip_address(text.split("%", 1)[0])  # a zone (fe80::1%eth0) names no other address


def blocked_reason(address: str | Address) -> str | None:
    """Why ``address`` may not be fetched (``"a loopback address"``, ...), or None for a public one.

    Parameters
    ----------
    address : str or ipaddress.IPv4Address or ipaddress.IPv6Address
        An IP address as resolved (not a host name): ``"127.0.0.1"``, ``"::1"``, ``"[::1]"``.

    Returns
    -------
    str or None
        The kind of address, as the refusal names it, or None when the address is public.

    Raises
    ------
    SgrKitError
        When ``address`` is not an IP address.

    Examples
    --------
    >>> blocked_reason("127.0.0.1"), blocked_reason("::ffff:10.0.0.1"), blocked_reason("169.254.169.254")
    ('a loopback address', 'a private address', 'a cloud metadata address')
    >>> blocked_reason("100.64.0.1"), blocked_reason("2002:c0a8:0101::1"), blocked_reason("93.184.215.14")
    ('a shared (carrier-grade NAT) address', 'a private address', None)
    """
    try:
        ip = _address(address)
    except ValueError:
        raise SgrKitError(f"{address!r} is not an IP address") from None
    if ip in _METADATA:
        return _METADATA[ip]
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            return blocked_reason(inner)
    for network, why in _REFUSED:
        if ip.version == network.version and ip in network:
            return why
    if ip.is_multicast:
        return "a multicast address"
    if not ip.is_global:
        return "an address that is not globally routable"
    return None


def allow_private() -> bool:
    """Whether :data:`ALLOW_PRIVATE_ENV` is set (``1``, ``true`` or ``yes``), read at each call.

    Examples
    --------
    >>> import os
    >>> os.environ.pop(ALLOW_PRIVATE_ENV, None) and None
    >>> allow_private()
    False
    """
    return os.environ.get(ALLOW_PRIVATE_ENV, "").strip().lower() in ("1", "true", "yes")


def check_address(address: str | Address, url: str) -> None:
    """Refuse ``address`` (the one ``url`` resolved to) unless it is public or private ones are allowed.

    Parameters
    ----------
    address : str or ipaddress.IPv4Address or ipaddress.IPv6Address
        The resolved address the connection would go to.
    url : str
        The URL, for the message.

    Raises
    ------
    WebError
        Naming the URL, the address and its kind.

    Examples
    --------
    >>> check_address("93.184.215.14", "http://example.com/")
    >>> check_address("10.1.2.3", "http://intranet.example/")
    Traceback (most recent call last):
    ...
    sgr_kit.run.guard.WebError: refused http://intranet.example/: it resolves to 10.1.2.3, a private address; only public internet addresses are fetched
    """
    if allow_private():
        return
    why = blocked_reason(address)
    if why is not None:
        raise WebError(f"refused {url}: it resolves to {_address(address)}, {why}; only public internet addresses "
                       f"are fetched")  # fmt: skip


def parse_web_url(url: str) -> URL:
    """``url`` parsed by the WHATWG URL standard (as a browser does), checked to be http or https.

    A host spelled as a number (``0x7f.1``, ``2130706433``, ``0177.0.0.1``, ``127.1``) comes
    back as the dotted address it means, an international name in its ASCII form.

    Parameters
    ----------
    url : str
        An absolute URL.

    Returns
    -------
    ada_url.URL

    Raises
    ------
    WebError
        When ``url`` is no URL, or its scheme is not http or https.

    Examples
    --------
    >>> parse_web_url("http://0x7f.1:8080/a?b#c").href
    'http://127.0.0.1:8080/a?b#c'
    >>> parse_web_url("file:///etc/passwd")
    Traceback (most recent call last):
    ...
    sgr_kit.run.guard.WebError: refused file:///etc/passwd: only http and https URLs are fetched
    """
    text = str(url).strip()
    try:
        parsed = URL(text)
    except ValueError:
        shown = text if len(text) <= 200 else text[:200] + "…"
        raise WebError(f"{shown!r} is not a valid URL (expected an absolute http or https URL)") from None
    if parsed.protocol not in ("http:", "https:"):
        raise WebError(f"refused {_shown(parsed.href)}: only http and https URLs are fetched")
    if not parsed.hostname:
        raise WebError(f"{_shown(parsed.href)} names no host")
    return parsed


def _shown(url: str) -> str:
    return url if len(url) <= 300 else url[:300] + "…"
