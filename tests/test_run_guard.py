"""The address guard of the paper's fetch and read_pdf tools (sgr_kit.run.guard, as sgr_kit.run.web uses it).

Known answers: IANA's IPv4 and IPv6 special-purpose address registries (RFC 6890 and updates)
and the cloud providers' documented metadata addresses; every spelling of a host a WHATWG
URL parser accepts (as a browser does) is checked after normalization, on the resolved address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webfixture import web_server  # noqa: F401  (the pytest fixture)

from sgr_kit.errors import SgrKitError
from sgr_kit.run import guard, web
from sgr_kit.run.guard import ALLOW_PRIVATE_ENV, WebError, blocked_reason, check_address, parse_web_url


@pytest.fixture
def no_private(monkeypatch):
    monkeypatch.delenv(ALLOW_PRIVATE_ENV, raising=False)


# (URL as a page could write it, the refusal's words): loopback, private, link-local, shared, multicast,
# unspecified, cloud metadata, in IPv4, IPv6, IPv4-mapped IPv6, 6to4, NAT64, and numeric host spellings.
REFUSED = [
    ("http://127.0.0.1/", "127.0.0.1, a loopback address"),
    ("http://127.1/", "127.0.0.1, a loopback address"),
    ("http://0x7f.1/", "127.0.0.1, a loopback address"),
    ("http://0x7f000001/", "127.0.0.1, a loopback address"),
    ("http://2130706433/", "127.0.0.1, a loopback address"),
    ("http://0177.0.0.1/", "127.0.0.1, a loopback address"),
    ("http://0177.0000.0000.0001/", "127.0.0.1, a loopback address"),
    ("http://127.000.000.001/", "127.0.0.1, a loopback address"),
    ("HTTP://127.0.0.1:8888/api", "127.0.0.1, a loopback address"),
    ("http://127.255.255.254/", "a loopback address"),
    ("http://[::1]/", "::1, a loopback address"),
    ("http://[0:0:0:0:0:0:0:1]/", "::1, a loopback address"),
    ("http://[::ffff:127.0.0.1]/", "a loopback address"),
    ("http://[::ffff:7f00:1]/", "a loopback address"),
    ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "a loopback address"),
    ("http://[2002:7f00:1::]/", "a loopback address"),
    ("http://[64:ff9b::7f00:1]/", "a loopback address"),
    ("http://[::127.0.0.1]/", "an IPv4-compatible (deprecated) address"),
    ("http://10.0.0.1/", "10.0.0.1, a private address"),
    ("http://012.0.0.1/", "10.0.0.1, a private address"),
    ("http://167772161/", "10.0.0.1, a private address"),
    ("http://172.16.0.1/", "a private address"),
    ("http://172.31.255.255/", "a private address"),
    ("http://192.168.1.1/", "a private address"),
    ("http://0xc0.0xa8.1.1/", "192.168.1.1, a private address"),
    ("http://[::ffff:192.168.1.1]/", "a private address"),
    ("http://[fc00::1]/", "a private (unique local) address"),
    ("http://[fd12:3456::1]/", "a private (unique local) address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254, a cloud metadata address"),
    ("http://0xa9fea9fe/", "169.254.169.254, a cloud metadata address"),
    ("http://2852039166/computeMetadata/v1/", "169.254.169.254, a cloud metadata address"),
    ("http://[::ffff:169.254.169.254]/", "a cloud metadata address"),
    ("http://[::ffff:a9fe:a9fe]/", "a cloud metadata address"),
    ("http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254, a cloud metadata address"),
    ("http://100.100.100.200/latest/meta-data/", "a cloud metadata address"),
    ("http://192.0.0.192/opc/v2/", "a cloud metadata address"),
    ("http://169.254.170.2/v2/credentials", "a cloud metadata address"),
    ("http://169.254.1.1/", "a link-local address"),
    ("http://[fe80::1]/", "fe80::1, a link-local address"),
    ("http://100.64.0.1/", "a shared (carrier-grade NAT) address"),
    ("http://100.127.255.254/", "a shared (carrier-grade NAT) address"),
    ("http://224.0.0.1/", "a multicast address"),
    ("http://239.255.255.250:1900/", "a multicast address"),
    ("http://[ff02::1]/", "a multicast address"),
    ("http://0.0.0.0/", "0.0.0.0, an unspecified ('this network') address"),
    ("http://0/", "0.0.0.0, an unspecified ('this network') address"),
    ("http://[::]/", "an unspecified address"),
    ("http://255.255.255.255/", "a reserved address"),
    ("http://240.0.0.1/", "a reserved address"),
    ("http://192.0.2.1/", "a documentation address"),
    ("http://[2001:db8::1]/", "a documentation address"),
    ("http://198.18.0.1/", "a benchmarking address"),
    ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "a Teredo address"),
]


@pytest.mark.parametrize("url, why", REFUSED)
def test_every_spelling_of_a_non_public_address_is_refused_before_connecting(url, why, no_private, monkeypatch):
    import httpx

    async def no_request(*args, **kwargs):
        raise AssertionError("a request went out to a refused address")

    monkeypatch.setattr(httpx.AsyncClient, "send", no_request)
    for read in (web.fetch_text, web.pdf_text):
        with pytest.raises(WebError, match=f"^refused .*resolves to .*{why.replace('(', '[(]').replace(')', '[)]')}; "
                                           f"only public internet addresses are fetched$"):  # fmt: skip
            asyncio.run(read(url, timeout=5))


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111",
                                     "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"])  # fmt: skip
def test_public_addresses_are_allowed(address):
    assert blocked_reason(address) is None
    check_address(address, "http://example.com/")


def test_a_host_name_is_checked_on_what_it_resolves_to(no_private):
    with pytest.raises(WebError, match=r"^refused http://localhost:9/x: it resolves to (127\.0\.0\.1|::1), a loopback "):
        asyncio.run(web.fetch_text("http://localhost:9/x", timeout=5))


@pytest.mark.parametrize("url, match", [
    ("file:///etc/passwd", "^refused file:///etc/passwd: only http and https URLs are fetched$"),
    ("ftp://example.com/a", "^refused ftp://example.com/a: only http and https"),
    ("javascript:alert(1)", "^refused javascript:alert[(]1[)]: only http and https"),
    ("gopher://127.0.0.1:6379/_FLUSHALL", "only http and https"),
    ("example.com/page", r"^'example.com/page' is not a valid URL \(expected an absolute http or https URL\)$"),
    ("http://1.2.3.4.5/", "is not a valid URL"),
    ("", "is not a valid URL"),
])  # fmt: skip
def test_only_absolute_http_urls_are_fetched(url, match, no_private):
    with pytest.raises(WebError, match=match):
        asyncio.run(web.fetch_text(url, timeout=5))


def test_blocked_reason_needs_an_ip_address():
    with pytest.raises(SgrKitError, match="^'example.com' is not an IP address$"):
        blocked_reason("example.com")


def test_parse_web_url_normalizes_as_a_browser_does():
    assert parse_web_url("http://0x7f.1:80/a/../b?q#f").href == "http://127.0.0.1/b?q#f"
    assert parse_web_url("https://ÉXAMPLE.com/p").hostname == "xn--xample-9ua.com"


@given(st.ip_addresses(v=4))
def test_an_ipv4_address_inside_ipv6_gets_the_verdict_of_the_ipv4_address(address):
    for wrapped in (f"::ffff:{address}",  # IPv4-mapped
                    str(ipaddress.IPv6Address((0x2002 << 112) | (int(address) << 80))),  # 6to4
                    str(ipaddress.IPv6Address((0x64FF9B << 96) | int(address)))):  # NAT64 well-known prefix
        assert blocked_reason(wrapped) == blocked_reason(address)


@given(st.ip_addresses())
def test_an_allowed_address_is_globally_routable_and_not_multicast(address):
    if blocked_reason(address) is None:
        assert address.is_global and not address.is_multicast


@given(st.integers(0, 2**32 - 1))
def test_every_numeric_spelling_of_an_ipv4_host_gets_the_same_verdict(number):
    address = ipaddress.IPv4Address(number)
    octets = str(address).split(".")
    spellings = [str(number), hex(number), ".".join(f"0{int(o):o}" for o in octets), ".".join(hex(int(o)) for o in octets)]
    for spelling in spellings:
        host = parse_web_url(f"http://{spelling}/").hostname
        assert host == str(address)
        assert blocked_reason(host) == blocked_reason(address)


def test_allow_private_lets_the_tools_reach_loopback(web_server):
    assert guard.allow_private()
    text = asyncio.run(web.fetch_text(web_server.page("index")))
    assert "State census office" in text


@pytest.fixture
def loopback_is_public(monkeypatch, no_private):
    """127.0.0.1 (the fixture server) counts as public; every other address keeps its verdict."""
    real = guard.blocked_reason
    monkeypatch.setattr(guard, "blocked_reason", lambda a: None if str(a) == "127.0.0.1" else real(a))


@pytest.mark.parametrize("target, match", [
    ("http://127.0.0.2:{port}/page/index", "refused http://127.0.0.2:{port}/page/index: it resolves to 127.0.0.2, "
                                           "a loopback address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254, a cloud metadata address"),
    ("http://[::ffff:10.0.0.1]/", "a private address"),
    ("file:///etc/passwd", "only http and https URLs are fetched"),
])  # fmt: skip
def test_every_redirect_is_checked_again(web_server, loopback_is_public, target, match):
    port = web_server.url.rsplit(":", 1)[1]
    url = f"{web_server.url}/redirect-to?url={target.format(port=port)}"
    for read in (web.fetch_text, web.pdf_text):
        with pytest.raises(WebError, match=match.format(port=port).replace("(", "[(]").replace(")", "[)]")):
            asyncio.run(read(url, timeout=10))
    assert asyncio.run(web.fetch_text(web_server.page("index"))).startswith("URL: ")  # the first hop itself was allowed


def _resolver(answers: list[list[str]], calls: list[str]):
    async def getaddrinfo(host, port, *, family=0, type=0, proto=0, flags=0):
        calls.append(host)
        found = answers[min(len(calls), len(answers)) - 1]
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in found]

    return getaddrinfo


def test_a_name_is_resolved_once_and_the_connection_goes_to_the_checked_address(web_server, loopback_is_public,
                                                                                 monkeypatch):  # fmt: skip
    # DNS rebinding: the first answer is the (allowed) fixture address, every later one a private address.
    # The fetch resolves once, checks, and connects to that address, with the name kept in the Host header.
    import anyio

    calls: list[str] = []
    monkeypatch.setattr(anyio, "getaddrinfo", _resolver([["127.0.0.1"], ["10.0.0.1"]], calls))
    port = web_server.url.rsplit(":", 1)[1]
    text = asyncio.run(web.fetch_text(f"http://rebind.example:{port}/echo-host"))
    assert calls == ["rebind.example"]
    assert text.endswith(f"\nrebind.example:{port}")


def test_a_name_with_any_non_public_address_is_refused(no_private, monkeypatch):
    import anyio

    monkeypatch.setattr(anyio, "getaddrinfo", _resolver([["93.184.215.14", "10.0.0.1"]], []))
    with pytest.raises(WebError, match="^refused http://mixed.example/: it resolves to 10.0.0.1, a private address"):
        asyncio.run(web.fetch_text("http://mixed.example/"))


def test_a_name_that_does_not_resolve_is_an_error_the_model_reads(no_private, monkeypatch):
    import anyio

    async def fails(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(anyio, "getaddrinfo", fails)
    with pytest.raises(WebError, match=r"^http://nowhere.example/: the host nowhere.example could not be resolved "
                                       r"\(Name or service not known\)$"):  # fmt: skip
        asyncio.run(web.fetch_text("http://nowhere.example/"))
