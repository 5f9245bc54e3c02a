"""The web client behind the paper's three tools: search, a page's readable text, a PDF's text.

The paper's runs exposed "only three external retrieval tool classes: Serper search,
fetch-based webpage reading, and PDF reading" (Appendix C, "Exposed tools and runtime
restrictions"). This module is that client, with no inspect_ai in it, so that the inspect tools
(:mod:`sgr_kit.run.tools`) and the MCP server (:mod:`sgr_kit.run.mcp_server`) are one client:

- :func:`web_search` calls a Serper-compatible endpoint: ``POST {search_url}/search`` with the
  JSON ``{"q": query}`` and the header ``X-API-KEY`` (from :data:`API_KEY_ENV`); the base URL is
  Serper's (:data:`SEARCH_URL`) unless a parameter or :data:`SEARCH_URL_ENV` names another (a
  proxy, a local stub). It returns the title, link and snippet of the ``organic`` results.
- :func:`fetch_text` returns a page's readable text (the main content as Markdown, tables and
  links kept, by trafilatura), and says when the URL is a PDF.
- :func:`pdf_text` returns a PDF's text page by page (pypdf).

Both readers go only to public addresses (:mod:`sgr_kit.run.guard`): a host name is resolved
once, every address it resolves to is checked, and the connection goes to the checked address
(the URL's host kept in the ``Host`` header and in TLS's server name, so certificates are
verified as usual). Redirects are followed here, at most :data:`MAX_REDIRECTS`, each checked the
same way. Every call is bounded in bytes (the body read, decompressed), in characters (the
text returned) and in seconds (resolution, connection, download and extraction together).
Every failure is a :class:`WebError` whose message the model may read.
"""

from __future__ import annotations

import io
import ipaddress
import os
import socket
import urllib.request
import zlib
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from .. import __version__
from ..errors import SgrKitError, decode_json
from .guard import ALLOW_PRIVATE_ENV, WebError, check_address, parse_web_url

__all__ = [
    "ALLOW_PRIVATE_ENV",
    "API_KEY_ENV",
    "FETCH_MAX_BYTES",
    "FETCH_TIMEOUT",
    "MAX_CHARS",
    "MAX_REDIRECTS",
    "PDF_MAX_BYTES",
    "PDF_MAX_PAGES",
    "PDF_TIMEOUT",
    "SEARCH_URL",
    "SEARCH_URL_ENV",
    "WebError",
    "check_search_ready",
    "fetch_text",
    "format_results",
    "pdf_text",
    "resolve_search_url",
    "web_search",
]

#: Serper's API, the search the paper used (its ``/search`` endpoint is called).
SEARCH_URL = "https://google.serper.dev"
#: The environment variable naming another Serper-compatible base URL (a proxy, a local stub).
SEARCH_URL_ENV = "SGR_SEARCH_URL"
#: The environment variable holding the search API key, sent as the ``X-API-KEY`` header.
API_KEY_ENV = "SERPER_API_KEY"
#: The most redirects one fetch follows.
MAX_REDIRECTS = 5
#: The most bytes of a page read (after decompression); the rest of a longer page is not read.
FETCH_MAX_BYTES = 5 * 2**20
#: The largest PDF read, in bytes (after decompression); a larger one is refused.
PDF_MAX_BYTES = 25 * 2**20
#: The most PDF pages read.
PDF_MAX_PAGES = 50
#: The most characters of text a tool returns; longer text is cut, saying so.
MAX_CHARS = 50_000
#: Seconds one fetch may take in all (resolution, connection, redirects, download, extraction).
FETCH_TIMEOUT = 30.0
#: Seconds one PDF read may take in all.
PDF_TIMEOUT = 60.0

_SEARCH_MAX_BYTES = 2 * 2**20
_TITLE, _LINK, _SNIPPET = 300, 2_000, 1_000
_MAX_QUERY = 2_000
_REDIRECT = {301, 302, 303, 307, 308}
_USER_AGENT = f"sgr-kit/{__version__} (SGR-Bench runner)"
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_UNTYPED = ("application/octet-stream", "binary/octet-stream")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "+json", "+xml")


def resolve_search_url(search_url: str | None = None) -> str:
    """The search base URL in use: ``search_url``, else :data:`SEARCH_URL_ENV`, else :data:`SEARCH_URL`.

    Parameters
    ----------
    search_url : str, optional
        A Serper-compatible base URL (``/search`` is appended).

    Returns
    -------
    str
        The base URL, without a trailing slash.

    Raises
    ------
    SgrKitError
        When the URL is not an http or https URL.

    Examples
    --------
    >>> resolve_search_url("http://127.0.0.1:8000/serper/")
    'http://127.0.0.1:8000/serper'
    """
    chosen = search_url or os.environ.get(SEARCH_URL_ENV) or SEARCH_URL
    source = "search_url" if search_url else (SEARCH_URL_ENV if os.environ.get(SEARCH_URL_ENV) else "SEARCH_URL")
    try:
        parse_web_url(chosen)
    except WebError:
        raise SgrKitError(f"{source}: expected an http or https base URL of a Serper-compatible search "
                          f"endpoint; found {chosen!r}") from None  # fmt: skip
    return chosen.strip().rstrip("/")


def _cut(text: str, limit: int, what: str) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[{what} cut: {len(text):,} characters, the first {limit:,} shown]"


def _clean(value: Any, limit: int) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_search_ready(search_url: str | None = None) -> None:
    """Check, before any sample runs, that the search endpoint can be used.

    The real Serper endpoint needs a key (:data:`API_KEY_ENV`); any endpoint must accept a
    connection (its host resolves and its port answers), unless the search goes through a proxy
    (``HTTPS_PROXY`` and the like). No search is made, so no credit is spent.

    Parameters
    ----------
    search_url : str, optional
        As for :func:`web_search`.

    Raises
    ------
    SgrKitError
        Naming the endpoint and what is missing: the key, or the connection (and why).

    Examples
    --------
    >>> import os
    >>> os.environ.pop(API_KEY_ENV, None) and None
    >>> check_search_ready("https://google.serper.dev")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: the search tool calls Serper (https://google.serper.dev/search), which needs an API key: set SERPER_API_KEY, or point SGR_SEARCH_URL (or search_url) at another Serper-compatible endpoint
    """
    base = resolve_search_url(search_url)
    parsed = parse_web_url(base)
    if parsed.hostname == parse_web_url(SEARCH_URL).hostname and not os.environ.get(API_KEY_ENV, "").strip():
        raise SgrKitError(f"the search tool calls Serper ({base}/search), which needs an API key: set {API_KEY_ENV}, "
                          f"or point {SEARCH_URL_ENV} (or search_url) at another Serper-compatible endpoint")  # fmt: skip
    host = parsed.hostname.strip("[]")
    port = int(parsed.port) if parsed.port else (443 if parsed.protocol == "https:" else 80)
    proxies = urllib.request.getproxies()
    if (proxies.get(parsed.protocol.rstrip(":")) or proxies.get("all")) and not urllib.request.proxy_bypass(host):
        return  # the search goes through the proxy: the endpoint is not connected to directly
    try:
        with socket.create_connection((host, port), timeout=10):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise SgrKitError(f"the search endpoint {base}/search cannot be reached ({reason}); check {SEARCH_URL_ENV} "
                          f"(or search_url) and the network") from None  # fmt: skip


async def web_search(query: str, *, search_url: str | None = None, api_key: str | None = None,
                     timeout: float = 30, max_results: int = 10) -> list[dict]:  # fmt: skip
    """Search the web through a Serper-compatible endpoint: the organic results' title, link and snippet.

    Parameters
    ----------
    query : str
        The search query (at most 2,000 characters).
    search_url : str, optional
        The endpoint's base URL (default: :data:`SEARCH_URL_ENV`, else Serper's).
    api_key : str, optional
        Sent as ``X-API-KEY`` (default: :data:`API_KEY_ENV`; none is sent when neither is set).
    timeout : float
        Seconds the whole call may take.
    max_results : int
        The most results returned.

    Returns
    -------
    list of dict
        ``{"title", "link", "snippet"}`` per organic result, in the endpoint's order, each text
        on one line and bounded (300, 2,000 and 1,000 characters).

    Raises
    ------
    WebError
        For an empty query, an unreachable endpoint, a timeout, an HTTP error (a refused key, a
        rate limit) or a response that is not Serper's JSON.
    """
    import anyio
    import httpx

    if not isinstance(query, str) or not query.strip():
        raise WebError("search needs a non-empty query")
    if len(query) > _MAX_QUERY:
        raise WebError(f"the query has {len(query):,} characters; at most {_MAX_QUERY:,} are sent")
    base = resolve_search_url(search_url)
    endpoint = f"{base}/search"
    key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "").strip()
    headers = {"Content-Type": "application/json", "User-Agent": _USER_AGENT}
    if key:
        headers["X-API-KEY"] = key
    try:
        with anyio.fail_after(timeout):
            async with httpx.AsyncClient(timeout=None, follow_redirects=False) as client:
                async with client.stream("POST", endpoint, json={"q": query}, headers=headers) as response:
                    body, over = await _read(response, _SEARCH_MAX_BYTES)
    except TimeoutError:
        raise WebError(f"the search for {query[:200]!r} timed out after {timeout:g} s ({endpoint})") from None
    except (httpx.HTTPError, OSError) as exc:
        raise WebError(f"the search endpoint {endpoint} could not be reached ({_reason(exc)})") from None
    status = response.status_code
    if status in (401, 403):
        raise WebError(f"the search endpoint {endpoint} refused the request (HTTP {status}): check {API_KEY_ENV}")
    if status == 429:
        raise WebError(f"the search endpoint {endpoint} is rate-limiting (HTTP 429); try again later")
    if status >= 400:
        raise WebError(f"the search endpoint {endpoint} answered HTTP {status} {response.reason_phrase}".rstrip())
    if over:
        raise WebError(f"the search endpoint {endpoint} sent more than {_SEARCH_MAX_BYTES:,} bytes")
    try:
        data, _ = decode_json(body.decode("utf-8", errors="replace"), endpoint, loc=f"the search endpoint {endpoint}")
    except SgrKitError as exc:
        raise WebError(str(exc)) from None
    organic = data.get("organic", []) if isinstance(data, dict) else None
    if not isinstance(organic, list):
        raise WebError(f"the search endpoint's response has no 'organic' list of results ({endpoint})")
    results = []
    for item in organic:
        if isinstance(item, dict) and isinstance(item.get("link"), str):
            results.append({"title": _clean(item.get("title"), _TITLE), "link": _clean(item["link"], _LINK),
                            "snippet": _clean(item.get("snippet"), _SNIPPET)})  # fmt: skip
        if len(results) >= max_results:
            break
    return results


def format_results(results: list[dict], query: str) -> str:
    """Search results as the ``search`` tool shows them: a numbered list of title, link and snippet.

    Parameters
    ----------
    results : list of dict
        As :func:`web_search` returns them.
    query : str
        The query, named when there are no results.

    Returns
    -------
    str

    Examples
    --------
    >>> print(format_results([{"title": "Census", "link": "https://example.org/c", "snippet": "Counties."}], "q"))
    1. Census
       https://example.org/c
       Counties.
    >>> format_results([], "county seats")
    "No results for 'county seats'."
    """
    if not results:
        return f"No results for {query!r}."
    lines = []
    for number, result in enumerate(results, start=1):
        lines.append(f"{number}. {result['title'] or '(no title)'}\n   {result['link']}")
        if result["snippet"]:
            lines.append(f"   {result['snippet']}")
    return "\n".join(lines)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


class _Decoder:
    """A bounded decoder of one Content-Encoding (identity, gzip, deflate): never more than asked."""

    def __init__(self, encoding: str, url: str) -> None:
        encoding = encoding.strip().lower()
        self._deflate = encoding == "deflate"
        self._zlib: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding not in ("", "identity", "deflate"):
            raise WebError(f"{url}: the server sent the content encoded as {encoding!r}, which is not read")

    def __call__(self, chunk: bytes, limit: int) -> bytes:
        if not chunk:
            return b""
        if self._deflate and self._zlib is None:  # zlib-wrapped or raw deflate: servers send both
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS if chunk[:1] == b"\x78" else -zlib.MAX_WBITS)
        if self._zlib is None:
            return chunk
        try:
            return self._zlib.decompress(chunk, limit)  # at most `limit` bytes, however well it compresses
        except zlib.error as exc:
            raise WebError(f"the content is not valid compressed data ({exc})") from None


async def _read(response: Any, max_bytes: int, url: str = "") -> tuple[bytes, bool]:
    """The body of a streamed response, decoded, at most ``max_bytes``; and whether it was longer."""
    decode = _Decoder(response.headers.get("content-encoding", ""), url or str(response.url))
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += decode(chunk, max_bytes - len(body) + 1)
        if len(body) > max_bytes:
            del body[max_bytes:]
            return bytes(body), True
    return bytes(body), False


async def _resolve(url: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address ``url``'s host resolves to, every resolved address checked; the first is used."""
    import anyio

    host = url.hostname.strip("[]")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        port = int(url.port) if url.port else (443 if url.protocol == "https:" else 80)
        try:
            infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise WebError(f"{url.href}: the host {host} could not be resolved "
                           f"({getattr(exc, 'strerror', None) or type(exc).__name__})") from None  # fmt: skip
        found = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
                 for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)]  # fmt: skip
        if not found:
            raise WebError(f"{url.href}: the host {host} resolves to no internet address")
        for each in dict.fromkeys(found):
            check_address(each, url.href)
        return found[0]
    check_address(address, url.href)
    return address


@asynccontextmanager
async def _open(url: str, *, accept: str) -> AsyncIterator[tuple[str, Any]]:
    """GET ``url``, following redirects here, each hop's address checked and pinned: (final URL, response)."""
    import httpx
    from ada_url import join_url

    current = parse_web_url(url)
    for _ in range(MAX_REDIRECTS + 1):
        address = await _resolve(current)
        https = current.protocol == "https:"
        port = int(current.port) if current.port else (443 if https else 80)
        pinned = f"[{address}]" if address.version == 6 else str(address)
        target = f"{current.protocol}//{pinned}:{port}{current.pathname}{current.search}"
        headers = {"Host": current.host, "User-Agent": _USER_AGENT, "Accept": accept,
                   "Accept-Encoding": "gzip, deflate"}  # fmt: skip
        extensions = {}
        if https and not _is_ip(current.hostname):
            extensions["sni_hostname"] = current.hostname  # TLS names (and verifies) the URL's host
        async with httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=None) as client:
            request = client.build_request("GET", target, headers=headers, extensions=extensions)
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:
                raise WebError(f"{current.href} could not be fetched ({_reason(exc)})") from None
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECT and location:
                    try:
                        next_url = join_url(current.href, location)
                    except ValueError:
                        raise WebError(f"{current.href} redirects to {location[:300]!r}, which is no URL") from None
                    current = parse_web_url(next_url)
                    continue
                if response.status_code >= 400:
                    raise WebError(f"{current.href} answered HTTP {response.status_code} "
                                   f"{response.reason_phrase}".rstrip())  # fmt: skip
                yield current.href, response
                return
            finally:
                await response.aclose()
    raise WebError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _is_text(kind: str) -> bool:
    return kind.startswith(_HTML_TYPES) or any(part in kind for part in _TEXT_TYPES)


def _content_type(response: Any) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _is_pdf(content_type: str, head: bytes, *, anywhere: bool = False) -> bool:
    """A PDF by its content type or its header: at the start (a page about PDFs is no PDF), or, for
    ``read_pdf``, anywhere in the first 1,024 bytes, as PDF readers accept."""
    if content_type in ("application/pdf", "application/x-pdf"):
        return True
    return b"%PDF-" in head[:1024] if anywhere else head.lstrip()[:5] == b"%PDF-"


def _from(final: str, url: str) -> str:
    return f"{final} (redirected from {url})" if final != parse_web_url(url).href else final


async def fetch_text(url: str, *, max_bytes: int = FETCH_MAX_BYTES, timeout: float = FETCH_TIMEOUT,
                     max_chars: int = MAX_CHARS) -> str:  # fmt: skip
    """A web page's readable text: its main content as Markdown (headings, tables, links), bounded.

    Parameters
    ----------
    url : str
        An http or https URL of a public address (see :mod:`sgr_kit.run.guard`).
    max_bytes : int
        The most bytes of the page read (decompressed); a longer page is read that far, saying so.
    timeout : float
        Seconds the whole call may take.
    max_chars : int
        The most characters returned; longer text is cut, saying so.

    Returns
    -------
    str
        ``URL: ...`` (and where it was redirected from), ``Title: ...``, then the text. Plain
        text, JSON, CSV and XML are returned as they are.

    Raises
    ------
    WebError
        A refused address or scheme, a timeout, an HTTP error, too many redirects, a PDF (read it
        with :func:`pdf_text`) or content that is not text (an image, an archive).
    """
    import anyio
    import httpx

    try:
        with anyio.fail_after(timeout):
            async with _open(url, accept="text/html,application/xhtml+xml,text/*;q=0.9,*/*;q=0.5") as (final, response):
                kind = _content_type(response)
                if _is_pdf(kind, b""):
                    raise WebError(f"{final} is a PDF document: read it with read_pdf")
                if kind and kind not in _UNTYPED and not _is_text(kind):
                    raise WebError(f"{final} is not a text page (its content type is {kind!r})")
                body, over = await _read(response, max_bytes, final)
                charset = response.charset_encoding
            if _is_pdf(kind, body):
                raise WebError(f"{final} is a PDF document: read it with read_pdf")
            if kind in _UNTYPED:  # a server that does not say: text unless it holds NUL bytes
                if b"\0" in body[:4096]:
                    raise WebError(f"{final} is not a text page (its content type is {kind!r})")
                kind = ""
            if kind.startswith(_HTML_TYPES) or not kind:
                title, text = await anyio.to_thread.run_sync(_html_text, body, final, charset, abandon_on_cancel=True)
            else:
                title, text = "", _decode(body, charset)
    except TimeoutError:
        raise WebError(f"fetching {url} timed out after {timeout:g} s") from None
    except (httpx.HTTPError, OSError) as exc:  # the connection failed while the body was read
        raise WebError(f"{url} could not be fetched ({_reason(exc)})") from None
    head = f"URL: {_from(final, url)}\n" + (f"Title: {title}\n" if title else "")
    if over:
        head += f"[only the first {max_bytes:,} bytes of the page were read]\n"
    text = text.strip() or "(the page has no readable text)"
    return head + "\n" + _cut(text, max_chars, "text")


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


def _html_text(body: bytes, url: str, charset: str | None) -> tuple[str, str]:
    """(title, main text as Markdown) of an HTML page; all its text when no main content is found."""
    import trafilatura
    from trafilatura.utils import load_html

    tree = load_html(_decode(body, charset) if charset else body)
    if tree is None:
        return "", ""
    tree.make_links_absolute(url, resolve_base_href=True, handle_failures="discard")
    title = _clean(tree.findtext(".//title") or "", _TITLE)
    text = trafilatura.extract(tree, url=url, output_format="markdown", include_tables=True, include_links=True,
                               include_comments=False, favor_recall=True)  # fmt: skip
    if not text:
        text = trafilatura.html2txt(tree) or ""
    return title, text


async def pdf_text(url: str, *, max_bytes: int = PDF_MAX_BYTES, timeout: float = PDF_TIMEOUT,
                   max_pages: int = PDF_MAX_PAGES, max_chars: int = MAX_CHARS) -> str:  # fmt: skip
    """A PDF's text, page by page (pypdf), bounded in bytes, pages, characters and seconds.

    Parameters
    ----------
    url : str
        An http or https URL of a public address (see :mod:`sgr_kit.run.guard`).
    max_bytes : int
        The largest PDF read; a larger one is refused (a cut PDF cannot be read).
    timeout : float
        Seconds the whole call may take (download and text extraction).
    max_pages : int
        The most pages read; the rest are named, not read.
    max_chars : int
        The most characters returned; longer text is cut, saying so.

    Returns
    -------
    str
        ``URL: ...``, ``Pages: N``, then ``[page i of N]`` and each page's text.

    Raises
    ------
    WebError
        A refused address or scheme, a timeout, an HTTP error, a file larger than ``max_bytes``,
        a file that is not a PDF, or a PDF pypdf cannot read (damaged, or encrypted with a
        password).
    """
    import anyio
    import httpx

    try:
        with anyio.fail_after(timeout):
            async with _open(url, accept="application/pdf,*/*;q=0.5") as (final, response):
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise WebError(f"{final} is {int(declared):,} bytes; read_pdf reads PDFs of at most {max_bytes:,} "
                                   f"bytes")  # fmt: skip
                kind = _content_type(response)
                body, over = await _read(response, max_bytes, final)
            if over:
                raise WebError(f"{final} is larger than {max_bytes:,} bytes; read_pdf reads PDFs of at most "
                               f"{max_bytes:,} bytes")  # fmt: skip
            if not _is_pdf(kind, body, anywhere=True):
                raise WebError(f"{final} is not a PDF (its content type is {kind or 'not given'!r}); read it with fetch")
            pages, text = await anyio.to_thread.run_sync(_pdf_pages, body, final, max_pages, max_chars,
                                                         abandon_on_cancel=True)  # fmt: skip
    except TimeoutError:
        raise WebError(f"reading the PDF {url} timed out after {timeout:g} s") from None
    except (httpx.HTTPError, OSError) as exc:  # the connection failed while the body was read
        raise WebError(f"{url} could not be fetched ({_reason(exc)})") from None
    return f"URL: {_from(final, url)}\nPages: {pages}\n\n" + text


def _pdf_pages(body: bytes, url: str, max_pages: int, max_chars: int) -> tuple[int, str]:
    """(number of pages, the text of the first ``max_pages`` pages, each headed, cut at ``max_chars``)."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise WebError(f"{url} is an encrypted PDF that needs a password")
        count = len(reader.pages)
    except WebError:
        raise
    except Exception as exc:  # pypdf raises many kinds on a damaged file
        raise WebError(f"{url} could not be read as a PDF ({_reason(exc)})") from None
    parts, total = [], 0
    for number in range(min(count, max_pages)):
        try:
            page = (reader.pages[number].extract_text() or "").strip()
        except Exception as exc:  # one damaged page does not lose the others
            page = f"(this page could not be read: {_reason(exc)})"
        parts.append(f"[page {number + 1} of {count}]\n{page or '(no text on this page)'}")
        total += len(parts[-1])
        if total > max_chars:
            break
    text = "\n\n".join(parts)
    if count > max_pages and total <= max_chars:
        text += f"\n\n[pages {max_pages + 1} to {count} not read: read_pdf reads at most {max_pages} pages]"
    return count, _cut(text, max_chars, "text")
