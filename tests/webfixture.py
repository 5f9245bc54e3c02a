"""A loopback web for the runner's tests: fixture pages, a PDF, redirects, a slow page, a search endpoint.

No test reaches the internet. :func:`serve` starts an HTTP server on ``127.0.0.1`` (port 0,
one thread) and the ``web_server`` fixture yields it as a :class:`WebServer`, with
``SGR_FETCH_ALLOW_PRIVATE=1`` (the tools may reach loopback) and a dummy ``SERPER_API_KEY`` set
for the test. Use it from a test module with::

    from webfixture import web_server  # noqa: F401  (the pytest fixture)

    def test_x(web_server):
        web_server.url, web_server.search_url, web_server.page("county-table"), web_server.pdf_url

What it serves (``GET`` unless said):

- ``/page/<name>``: the HTML pages of :data:`PAGES` (``county-table``: a table of counties with
  links; ``index``: links to the others; ``latin-1``: a page in ISO-8859-1; ``empty``).
- ``/files/report.pdf``: a two-page PDF made at test time (:func:`make_pdf`, text of
  :data:`PDF_PAGES`); ``/files/report.bin``: the same bytes as ``application/octet-stream``;
  ``/files/broken.pdf``: a file that says it is a PDF and is not.
- ``/redirect/<n>/<name>``: ``n`` redirects (302, relative ``Location``) ending at
  ``/page/<name>``; ``/redirect-to?url=U``: one redirect to ``U``.
- ``/slow``: answers only when the server closes (a client's timeout ends the wait);
  ``/slow-body``: sends its headers and part of a page, then waits the same way.
- ``/big?bytes=N``: an HTML page of ``N`` bytes; ``/gzip-bomb?mib=N``: ``N`` MiB of spaces in
  a page, gzip-compressed (about 1,000 times smaller on the wire).
- ``/encoded-page?as=gzip|deflate|raw-deflate|br``: the ``index`` page with that Content-Encoding
  (``br`` is sent uncompressed but labelled, as a server the client cannot read);
  ``/extra/<name>``: a file a test put in :attr:`WebServer.files`.
- ``/status/<code>``: that HTTP status; ``/image.png``: a few bytes as ``image/png``;
  ``/data.csv``: ``text/csv``; ``/echo-host``: the request's ``Host`` header as text.
- ``POST <search_url>/search`` (``search_url`` = ``<url>/serper``): a Serper-compatible search:
  the JSON body ``{"q": ...}`` and the headers are recorded in :attr:`WebServer.searches`; the
  answer is Serper's JSON shape (``searchParameters``, ``organic`` of ``title``, ``link``,
  ``snippet``, ``position``, as in langchain-ai/langchain,
  libs/community/langchain_community/utilities/google_serper.py, and Serper's documented
  example) with results linking to the fixture pages and the PDF. The queries ``status 500``,
  ``status 403``, ``not json`` and ``slow`` give those failures, ``no results`` none, and
  ``long snippet`` twenty results with overlong titles and snippets.
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

#: The fixture pages, by name (``/page/<name>``); ``{url}`` is the server's base URL.
PAGES = {
    "county-table": """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>County population, 2020 census</title></head>
<body>
<nav><a href="/page/index">Home</a> | <a href="/page/about">About</a></nav>
<main>
<h1>Population by county</h1>
<p>The table lists the resident population of each county of the state on census day 2020, as
published by the state's census office. Select a county for its detail page, or
<a href="../files/report.pdf">download the annual report (PDF)</a>.</p>
<table>
<tr><th>County</th><th>Seat</th><th>Population</th></tr>
<tr><td><a href="alpha-county">Alpha</a></td><td>Alphaville</td><td>12,345</td></tr>
<tr><td><a href="beta-county">Beta</a></td><td>Betatown</td><td>6,789</td></tr>
<tr><td><a href="gamma-county">Gamma</a></td><td>Gamma City</td><td>101,112</td></tr>
</table>
<p>Figures are final counts; revisions are published in the annual report.</p>
</main>
<footer>State census office &middot; contact &middot; privacy</footer>
</body></html>
""",
    "index": """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>State census office</title></head>
<body><h1>State census office</h1>
<p>Census tables and reports of the state, published by the census office every year since the
first state census.</p>
<ul><li><a href="/page/county-table">Population by county</a></li>
<li><a href="/files/report.pdf">Annual report (PDF)</a></li></ul>
</body></html>
""",
    "latin-1": """<html><head><meta charset="iso-8859-1"><title>Caf\xe9 list</title></head>
<body><h1>Caf\xe9s of the old town</h1>
<p>The old town has three caf\xe9s on the main square and two more near the river, each open
from early morning to late evening every day of the week.</p></body></html>
""",
    "empty": "<html><head><title></title></head><body></body></html>",
}
#: The text of each page of the fixture PDF.
PDF_PAGES = ["Annual report 2020. Alpha county population 12345.",
             "Appendix. Beta county population 6789. Gamma county population 101112."]  # fmt: skip
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def make_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF (version 1.4): one page per text, each line in Helvetica, with a correct xref.

    Written by hand from the PDF 1.4 reference (catalog, page tree, pages, one content stream per
    page, a Type 1 base font), so the tests need no PDF-writing library.
    """

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    n = len(pages)
    font = 3 + 2 * n
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [{' '.join(f'{3 + 2 * i} 0 R' for i in range(n))}] /Count {n} >>"]  # fmt: skip
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 720 Td ({escape(text)}) Tj ET"
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                       f"/Resources << /Font << /F1 {font} 0 R >> >> >>")  # fmt: skip
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@dataclass
class WebServer:
    """The running loopback web: its base URL and what it recorded."""

    url: str
    #: Every search request: ``{"path", "body", "headers"}`` (headers lower-cased).
    searches: list[dict] = field(default_factory=list)
    #: Every request's path, in order.
    paths: list[str] = field(default_factory=list)
    #: Files a test adds: ``files[name] = (bytes, content type)`` is served at ``/extra/<name>``.
    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)

    @property
    def search_url(self) -> str:
        """The Serper-compatible base URL (``POST {search_url}/search``)."""
        return f"{self.url}/serper"

    @property
    def pdf_url(self) -> str:
        """The fixture PDF's URL."""
        return f"{self.url}/files/report.pdf"

    def page(self, name: str) -> str:
        """A fixture page's URL."""
        return f"{self.url}/page/{name}"

    def results(self, query: str) -> list[dict]:
        """The organic results the search endpoint answers ``query`` with."""
        return [
            {"title": "Population by county - State census office", "link": self.page("county-table"),
             "snippet": f"Resident population of each county on census day 2020 ({query}).", "position": 1},
            {"title": "Annual report 2020 (PDF)", "link": self.pdf_url,
             "snippet": "The census office's annual report: revisions and appendix.", "position": 2},
            {"title": "State census office", "link": self.page("index"),
             "snippet": "Census tables and reports of the state.", "position": 3,
             "sitelinks": [{"title": "Tables", "link": self.page("county-table")}]},
        ]  # fmt: skip


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    pdf = make_pdf(PDF_PAGES)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # noqa: A002 - quiet
            pass

        def _send(self, status: int, body: bytes, kind: str = "text/html; charset=utf-8", **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def _wait(self) -> None:  # until the server closes (a client's timeout ends the request first)
            server.release.wait(60)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urlsplit(self.path)
            path, query = parts.path, parse_qs(parts.query)
            server.paths.append(path)
            if path.startswith("/page/"):
                name = path.removeprefix("/page/")
                if name not in PAGES:
                    return self._send(404, b"<html><body>not found</body></html>")
                charset = "iso-8859-1" if name == "latin-1" else "utf-8"
                return self._send(200, PAGES[name].format(url=server.url).encode(charset),
                                  f"text/html; charset={charset}")  # fmt: skip
            if path == "/files/report.pdf":
                return self._send(200, pdf, "application/pdf")
            if path == "/files/report.bin":
                return self._send(200, pdf, "application/octet-stream")
            if path == "/files/broken.pdf":
                return self._send(200, b"%PDF-1.4\nthis is not a PDF at all", "application/pdf")
            if path.startswith("/redirect/"):
                _, _, count, name = path.split("/", 3)
                hops = int(count)
                target = f"../{hops - 1}/{name}" if hops > 1 else f"../../page/{name}"  # relative, as servers send
                return self._send(302, b"", Location=target)
            if path == "/redirect-to":
                return self._send(302, b"", Location=query["url"][0])
            if path == "/slow":
                self._wait()
                return self._send(200, b"<html><body>late</body></html>")
            if path == "/slow-body":
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                self.wfile.write(b"<html><body><p>the start")
                self.wfile.flush()
                self._wait()
                return None
            if path == "/big":
                size = int(query.get("bytes", ["1000000"])[0])
                filler = b"<p>" + b"x" * 96 + b"</p>\n"
                body = b"<html><body>" + filler * (size // len(filler) + 1)
                return self._send(200, body[:size])
            if path == "/gzip-bomb":
                mib = int(query.get("mib", ["64"])[0])
                raw = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
                chunk = b" " * 2**20
                body = raw.compress(b"<html><body><p>")
                for _ in range(mib):
                    body += raw.compress(chunk)
                body += raw.flush()
                return self._send(200, body, Content_Encoding="gzip")
            if path == "/encoded-page":  # ?as=gzip|deflate|raw-deflate|br
                encoding, page = query.get("as", ["gzip"])[0], PAGES["index"].encode()
                body = {"gzip": gzip.compress(page), "deflate": zlib.compress(page),
                        "raw-deflate": zlib.compress(page, wbits=-zlib.MAX_WBITS)}.get(encoding, page)  # fmt: skip
                return self._send(200, body, Content_Encoding="deflate" if "deflate" in encoding else encoding)
            if path.startswith("/extra/") and path.removeprefix("/extra/") in server.files:
                body, kind = server.files[path.removeprefix("/extra/")]
                return self._send(200, body, kind)
            if path.startswith("/status/"):
                code = int(path.removeprefix("/status/"))
                return self._send(code, b"<html><body>status</body></html>")
            if path == "/image.png":
                return self._send(200, PNG, "image/png")
            if path == "/data.csv":
                return self._send(200, b"county,population\nAlpha,12345\n", "text/csv; charset=utf-8")
            if path == "/echo-host":
                return self._send(200, self.headers.get("Host", "").encode(), "text/plain")
            return self._send(404, b"<html><body>not found</body></html>")

        def do_POST(self) -> None:  # noqa: N802
            path = urlsplit(self.path).path
            server.paths.append(path)
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            if path != "/serper/search":
                return self._send(404, b"{}", "application/json")
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            server.searches.append({"path": path, "body": body,
                                    "headers": {k.lower(): v for k, v in self.headers.items()}})  # fmt: skip
            q = body.get("q", "") if isinstance(body, dict) else ""
            if q == "status 500":
                return self._send(500, b'{"message": "internal error"}', "application/json")
            if q == "status 403":
                return self._send(403, b'{"message": "Unauthorized."}', "application/json")
            if q == "not json":
                return self._send(200, b"<html>oops</html>", "text/html")
            if q == "slow":
                self._wait()
            if q == "no results":
                return self._send(200, b'{"searchParameters": {"q": "no results"}, "organic": []}', "application/json")
            if q == "long snippet":
                long = [{"title": "T " * 400, "link": server.page("index"), "snippet": "word\n " * 2000}]
                return self._send(200, json.dumps({"organic": long * 20}).encode(), "application/json")
            answer = {"searchParameters": {"q": q, "type": "search", "engine": "google"},
                      "organic": server.results(q), "credits": 1}  # fmt: skip
            return self._send(200, json.dumps(answer).encode(), "application/json")

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up (a timeout) is no error
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve() -> Iterator[WebServer]:
    """Run the loopback web on 127.0.0.1 (port 0) in a thread, for the duration of the block."""
    state = WebServer(url="")
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="loopback-web",
                              daemon=True)  # fmt: skip
    thread.start()
    try:
        yield state
    finally:
        state.release.set()  # let any waiting request end
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=30)


@pytest.fixture
def web_server(monkeypatch) -> Iterator[WebServer]:
    """The loopback web, with ``SGR_FETCH_ALLOW_PRIVATE=1`` and a dummy ``SERPER_API_KEY`` set."""
    monkeypatch.setenv("SGR_FETCH_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("SERPER_API_KEY", "test-key")
    monkeypatch.delenv("SGR_SEARCH_URL", raising=False)
    with serve() as server:
        yield server
