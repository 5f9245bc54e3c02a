"""The paper's web client (sgr_kit.run.web): search, page text, PDF text, against the loopback web.

The search endpoint's shape is Serper's (POST /search, {"q": ...}, X-API-KEY, "organic" results
of title/link/snippet; see tests/webfixture.py for the sources). Address checks are in
tests/test_run_guard.py; the inspect tools in tests/test_run_tools.py.
"""

from __future__ import annotations

import asyncio
import io
import os
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from webfixture import PDF_PAGES, make_pdf, web_server  # noqa: F401  (web_server: the pytest fixture)

from sgr_kit.errors import SgrKitError
from sgr_kit.run import web
from sgr_kit.run.web import WebError, check_search_ready, fetch_text, pdf_text, web_search


def run(coro):
    return asyncio.run(coro)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- search -------------------------------------------------------------------------------------


def test_search_posts_the_query_to_the_serper_endpoint_and_returns_the_organic_results(web_server):
    results = run(web_search("county population 2020", search_url=web_server.search_url))
    assert results == [{k: r[k] for k in ("title", "link", "snippet")} for r in web_server.results("county population 2020")]
    (request,) = web_server.searches
    assert request["path"] == "/serper/search"
    assert request["body"] == {"q": "county population 2020"}
    assert request["headers"]["x-api-key"] == "test-key"
    assert request["headers"]["content-type"] == "application/json"


def test_the_search_url_comes_from_the_parameter_then_the_environment(web_server, monkeypatch):
    monkeypatch.setenv(web.SEARCH_URL_ENV, web_server.search_url)
    assert web.resolve_search_url() == web_server.search_url
    assert run(web_search("x"))[0]["link"] == web_server.page("county-table")
    monkeypatch.setenv(web.SEARCH_URL_ENV, f"http://127.0.0.1:{closed_port()}")
    assert run(web_search("x", search_url=web_server.search_url + "/"))  # the parameter wins, a trailing / is dropped
    monkeypatch.delenv(web.SEARCH_URL_ENV)
    assert web.resolve_search_url() == "https://google.serper.dev"


def test_an_explicit_key_replaces_the_environment_and_none_is_sent_without_one(web_server, monkeypatch):
    run(web_search("x", search_url=web_server.search_url, api_key="other"))
    monkeypatch.delenv(web.API_KEY_ENV)
    run(web_search("y", search_url=web_server.search_url))
    assert web_server.searches[0]["headers"]["x-api-key"] == "other"
    assert "x-api-key" not in web_server.searches[1]["headers"]


def test_search_results_are_bounded_and_on_one_line(web_server):
    results = run(web_search("long snippet", search_url=web_server.search_url, max_results=3))
    assert len(results) == 3
    for result in results:
        assert len(result["title"]) <= 300 and len(result["snippet"]) <= 1000
        assert "\n" not in result["snippet"] and result["snippet"].endswith("…")
    assert run(web_search("no results", search_url=web_server.search_url)) == []


@pytest.mark.parametrize("query, match", [
    ("status 500", r"^the search endpoint http://127\.0\.0\.1:\d+/serper/search answered HTTP 500 Internal Server Error$"),
    ("status 403", r"refused the request \(HTTP 403\): check SERPER_API_KEY$"),
    ("not json", r"^the search endpoint http://.*/serper/search: not valid JSON \(Expecting value at column 1\)$"),
    ("  ", r"^search needs a non-empty query$"),
    ("q" * 2001, r"^the query has 2,001 characters; at most 2,000 are sent$"),
])  # fmt: skip
def test_search_failures_are_errors_the_model_reads(web_server, query, match):
    with pytest.raises(WebError, match=match):
        run(web_search(query, search_url=web_server.search_url))


def test_a_search_that_hangs_times_out(web_server):
    start = time.monotonic()
    with pytest.raises(WebError, match=r"^the search for 'slow' timed out after 0\.5 s \(http://.*/serper/search\)$"):
        run(web_search("slow", search_url=web_server.search_url, timeout=0.5))
    assert time.monotonic() - start < 10


def test_an_unreachable_search_endpoint_is_an_error(monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(WebError, match=rf"^the search endpoint {url}/search could not be reached \(ConnectError"):
        run(web_search("x", search_url=url))


PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY", "no_proxy")


def test_check_search_ready_needs_a_key_for_serper_and_a_reachable_endpoint(web_server, monkeypatch):
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
    check_search_ready(web_server.search_url)  # a local endpoint needs no key
    monkeypatch.delenv(web.API_KEY_ENV)
    with pytest.raises(SgrKitError, match=r"^the search tool calls Serper \(https://google\.serper\.dev/search\), which "
                                          r"needs an API key: set SERPER_API_KEY, or point SGR_SEARCH_URL"):  # fmt: skip
        check_search_ready()
    check_search_ready(web_server.search_url)
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(SgrKitError, match=rf"^the search endpoint {url}/search cannot be reached \(Connection refused\); "
                                          rf"check SGR_SEARCH_URL"):  # fmt: skip
        check_search_ready(url)
    with pytest.raises(SgrKitError, match=r"^search_url: expected an http or https base URL .*; found 'ftp://x'$"):
        check_search_ready("ftp://x")
    assert web_server.searches == []  # no search was made (no credit spent)


# --- fetch --------------------------------------------------------------------------------------


def test_fetch_returns_the_main_text_as_markdown_with_tables_and_absolute_links(web_server):
    text = run(fetch_text(web_server.page("county-table")))
    assert text.startswith(f"URL: {web_server.page('county-table')}\nTitle: County population, 2020 census\n\n")
    assert f"| [Alpha]({web_server.url}/page/alpha-county) | Alphaville | 12,345 |" in text
    assert f"[download the annual report (PDF)]({web_server.pdf_url})" in text
    assert "privacy" not in text  # the footer is no main content


def test_fetch_follows_redirects_and_says_so(web_server):
    text = run(fetch_text(f"{web_server.url}/redirect/3/latin-1"))
    assert text.startswith(f"URL: {web_server.page('latin-1')} (redirected from {web_server.url}/redirect/3/latin-1)\n"
                           f"Title: Café list\n")  # fmt: skip
    assert "three cafés" in text
    with pytest.raises(WebError, match=rf"^{web_server.url}/redirect/6/index: more than 5 redirects$"):
        run(fetch_text(f"{web_server.url}/redirect/6/index"))


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate"])
def test_fetch_reads_compressed_pages(web_server, encoding):
    assert "Census tables and reports" in run(fetch_text(f"{web_server.url}/encoded-page?as={encoding}"))


def test_fetch_refuses_an_encoding_it_did_not_ask_for(web_server):
    with pytest.raises(WebError, match=r"the server sent the content encoded as 'br', which is not read$"):
        run(fetch_text(f"{web_server.url}/encoded-page?as=br"))


def test_fetch_returns_plain_text_as_it_is_and_says_when_a_page_is_empty(web_server):
    assert run(fetch_text(f"{web_server.url}/data.csv")).endswith("\n\ncounty,population\nAlpha,12345")
    assert run(fetch_text(web_server.page("empty"))).endswith("\n(the page has no readable text)")


@pytest.mark.parametrize("path, match", [
    ("/files/report.pdf", r"^{url}/files/report\.pdf is a PDF document: read it with read_pdf$"),
    ("/files/report.bin", r"^{url}/files/report\.bin is a PDF document: read it with read_pdf$"),
    ("/image.png", r"^{url}/image\.png is not a text page \(its content type is 'image/png'\)$"),
    ("/status/404", r"^{url}/status/404 answered HTTP 404 Not Found$"),
    ("/status/500", r"^{url}/status/500 answered HTTP 500 Internal Server Error$"),
    ("/page/no-such-page", r"^{url}/page/no-such-page answered HTTP 404 Not Found$"),
])  # fmt: skip
def test_fetch_failures_are_errors_the_model_reads(web_server, path, match):
    with pytest.raises(WebError, match=match.format(url=web_server.url.replace(".", r"\."))):
        run(fetch_text(web_server.url + path))


@pytest.mark.parametrize("path", ["/slow", "/slow-body"])
def test_a_fetch_that_hangs_times_out(web_server, path):
    start = time.monotonic()
    with pytest.raises(WebError, match=rf"^fetching {web_server.url}{path} timed out after 0\.5 s$"):
        run(fetch_text(web_server.url + path, timeout=0.5))
    assert time.monotonic() - start < 10


def test_fetch_reads_at_most_max_bytes_and_returns_at_most_max_chars(web_server):
    text = run(fetch_text(f"{web_server.url}/big?bytes=3000000", max_bytes=50_000))
    assert "[only the first 50,000 bytes of the page were read]" in text
    assert len(text) < 50_000
    text = run(fetch_text(f"{web_server.url}/big?bytes=300000", max_chars=1_000))
    body = text.split("\n\n", 1)[1]
    assert body.endswith(" characters, the first 1,000 shown]") and len(body) < 1_100


@pytest.mark.slow
def test_a_decompression_bomb_is_read_only_as_far_as_max_bytes(web_server):
    # 512 MiB of spaces, gzip-compressed to about half a megabyte; the fetch runs in a process
    # whose address space is capped at 400 MiB, so a client that inflated it whole would die.
    code = textwrap.dedent("""
        import asyncio, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (400 * 2**20, 400 * 2**20))
        from sgr_kit.run import web
        print(asyncio.run(web.fetch_text(sys.argv[1], max_bytes=2**20)))
    """)
    env = {**os.environ, "SGR_FETCH_ALLOW_PRIVATE": "1"}
    done = subprocess.run([sys.executable, "-c", code, f"{web_server.url}/gzip-bomb?mib=512"], env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[only the first 1,048,576 bytes of the page were read]" in done.stdout


# --- read_pdf -----------------------------------------------------------------------------------


def test_read_pdf_returns_the_text_page_by_page(web_server):
    text = run(pdf_text(web_server.pdf_url))
    assert text == (f"URL: {web_server.pdf_url}\nPages: 2\n\n[page 1 of 2]\n{PDF_PAGES[0]}\n\n"
                    f"[page 2 of 2]\n{PDF_PAGES[1]}")  # fmt: skip
    assert PDF_PAGES[1] in run(pdf_text(f"{web_server.url}/files/report.bin"))  # found by its first bytes


def test_read_pdf_is_bounded_in_pages_characters_and_bytes(web_server):
    web_server.files["long.pdf"] = (make_pdf([f"Page number {i} of the long report." for i in range(1, 8)]),
                                    "application/pdf")  # fmt: skip
    url = f"{web_server.url}/extra/long.pdf"
    text = run(pdf_text(url, max_pages=3))
    assert "[page 3 of 7]" in text and "[page 4 of 7]" not in text
    assert text.endswith("[pages 4 to 7 not read: read_pdf reads at most 3 pages]")
    assert run(pdf_text(url, max_chars=60)).endswith("characters, the first 60 shown]")
    with pytest.raises(WebError, match=r"/extra/long\.pdf is \d{1,3}(,\d{3})* bytes; read_pdf reads PDFs of at most 100 "
                                       r"bytes$"):  # fmt: skip
        run(pdf_text(url, max_bytes=100))


def test_a_pdf_without_a_length_is_refused_once_it_passes_max_bytes(web_server, monkeypatch):
    with pytest.raises(WebError, match=r"/gzip-bomb\?mib=4 is larger than 10,000 bytes; read_pdf reads PDFs of at most"):
        run(pdf_text(f"{web_server.url}/gzip-bomb?mib=4", max_bytes=10_000))  # its length is the compressed one


def test_an_encrypted_pdf_is_read_when_it_has_no_password_and_refused_when_it_has(web_server):
    from pypdf import PdfReader, PdfWriter

    def encrypted(password: str) -> bytes:
        writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf(PDF_PAGES))))
        writer.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()

    web_server.files["open.pdf"] = (encrypted(""), "application/pdf")
    web_server.files["locked.pdf"] = (encrypted("secret"), "application/pdf")
    assert PDF_PAGES[0] in run(pdf_text(f"{web_server.url}/extra/open.pdf"))
    with pytest.raises(WebError, match=r"/extra/locked\.pdf is an encrypted PDF that needs a password$"):
        run(pdf_text(f"{web_server.url}/extra/locked.pdf"))


@pytest.mark.parametrize("path, match", [
    ("/page/index", r"/page/index is not a PDF \(its content type is 'text/html'\); read it with fetch$"),
    ("/files/broken.pdf", r"/files/broken\.pdf could not be read as a PDF \("),
    ("/status/403", r"/status/403 answered HTTP 403 Forbidden$"),
    ("/slow", r"^reading the PDF http://.*/slow timed out after 0\.5 s$"),
])  # fmt: skip
def test_read_pdf_failures_are_errors_the_model_reads(web_server, path, match):
    with pytest.raises(WebError, match=match):
        run(pdf_text(web_server.url + path, timeout=0.5))


def test_check_search_ready_leaves_the_connection_to_a_proxy(monkeypatch):
    for name in PROXIES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    check_search_ready(f"https://127.0.0.2:{closed_port()}")  # not connected to: the proxy would be
    monkeypatch.setenv("NO_PROXY", "127.0.0.2")
    with pytest.raises(SgrKitError, match="cannot be reached"):
        check_search_ready(f"https://127.0.0.2:{closed_port()}")


def test_a_page_that_mentions_the_pdf_header_is_still_a_page(web_server):
    web_server.files["about-pdf.html"] = (b"<html><head><title>PDF</title></head><body><p>Every PDF file starts with "
                                          b"%PDF-1.4 or a later version number, then its objects.</p></body></html>",
                                          "text/html")  # fmt: skip
    assert "starts with %PDF-1.4" in run(fetch_text(f"{web_server.url}/extra/about-pdf.html"))
