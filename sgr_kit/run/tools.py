"""The paper's three tools as inspect_ai tools: ``search(query)``, ``fetch(url)``, ``read_pdf(url)``.

The paper's runs exposed "only three external retrieval tool classes: Serper search,
fetch-based webpage reading, and PDF reading" (Appendix C, "Exposed tools and runtime
restrictions"). Each tool here is a thin, typed, async function over :mod:`sgr_kit.run.web`,
whose docstring is what the model reads; it returns text, bounded, and turns every failure
(a timeout, an HTTP error, a refused address, a file too large, a URL that is not a PDF) into
an inspect ``ToolError``, which the model reads and the log records: a tool failing never ends
the sample.

:func:`paper_tools` gives the three, as :func:`sgr_kit.run.sgr_bench` offers them (with
``submit``). inspect_ai is imported only here, so ``import sgr_kit`` never needs it.

Examples
--------
>>> from sgr_kit.run.tools import paper_tools
>>> from inspect_ai.tool import ToolDef
>>> [ToolDef(t).name for t in paper_tools()]
['search', 'fetch', 'read_pdf']
"""

from __future__ import annotations

from inspect_ai.tool import Tool, ToolError, tool

from . import web

__all__ = ["fetch", "paper_tools", "read_pdf", "search"]


@tool(name="search")
def search(*, search_url: str | None = None, max_results: int = 10, timeout: float = 30) -> Tool:
    """The paper's web search: a Serper-compatible endpoint's organic results.

    Parameters
    ----------
    search_url : str, optional
        The endpoint's base URL (``POST {search_url}/search``); default ``SGR_SEARCH_URL``,
        else Serper's (see :func:`sgr_kit.run.web.web_search`). The key is ``SERPER_API_KEY``.
    max_results : int
        The most results shown.
    timeout : float
        Seconds one search may take.

    Returns
    -------
    inspect_ai.tool.Tool
        The tool ``search(query)``: a numbered list of title, link and snippet.
    """

    async def execute(query: str) -> str:
        """Search the web (Google results) and list the top results: title, link and a snippet of each.

        Read a result's page with fetch(url), or read_pdf(url) for a PDF.

        Args:
            query: The search query, as you would type it into a search engine.
        """
        try:
            results = await web.web_search(query, search_url=search_url, timeout=timeout, max_results=max_results)
        except web.WebError as exc:
            raise ToolError(str(exc)) from None
        return web.format_results(results, query)

    return execute


@tool(name="fetch")
def fetch(*, max_bytes: int = web.FETCH_MAX_BYTES, timeout: float = web.FETCH_TIMEOUT,
          max_chars: int = web.MAX_CHARS) -> Tool:  # fmt: skip
    """The paper's page reader: a web page's readable text (see :func:`sgr_kit.run.web.fetch_text`).

    Parameters
    ----------
    max_bytes : int
        The most bytes of a page read.
    timeout : float
        Seconds one fetch may take.
    max_chars : int
        The most characters returned.

    Returns
    -------
    inspect_ai.tool.Tool
        The tool ``fetch(url)``.
    """

    async def execute(url: str) -> str:
        """Fetch a web page and return its readable text as Markdown: headings, paragraphs, tables and links.

        Long pages are cut. For a PDF document, use read_pdf(url) instead.

        Args:
            url: The page's full http or https URL.
        """
        try:
            return await web.fetch_text(url, max_bytes=max_bytes, timeout=timeout, max_chars=max_chars)
        except web.WebError as exc:
            raise ToolError(str(exc)) from None

    return execute


@tool(name="read_pdf")
def read_pdf(*, max_bytes: int = web.PDF_MAX_BYTES, timeout: float = web.PDF_TIMEOUT,
             max_pages: int = web.PDF_MAX_PAGES, max_chars: int = web.MAX_CHARS) -> Tool:  # fmt: skip
    """The paper's PDF reader: a PDF's text by page (see :func:`sgr_kit.run.web.pdf_text`).

    Parameters
    ----------
    max_bytes : int
        The largest PDF read.
    timeout : float
        Seconds one read may take.
    max_pages : int
        The most pages read.
    max_chars : int
        The most characters returned.

    Returns
    -------
    inspect_ai.tool.Tool
        The tool ``read_pdf(url)``.
    """

    async def execute(url: str) -> str:
        """Download a PDF document and return its text, page by page.

        Long documents are cut. For an HTML page, use fetch(url) instead.

        Args:
            url: The PDF's full http or https URL.
        """
        try:
            return await web.pdf_text(url, max_bytes=max_bytes, timeout=timeout, max_pages=max_pages,
                                      max_chars=max_chars)  # fmt: skip
        except web.WebError as exc:
            raise ToolError(str(exc)) from None

    return execute


def paper_tools(*, search_url: str | None = None) -> list[Tool]:
    """The paper's three tools, in the paper's order: ``search``, ``fetch``, ``read_pdf``.

    Parameters
    ----------
    search_url : str, optional
        The search endpoint's base URL (see :func:`search`).

    Returns
    -------
    list of inspect_ai.tool.Tool

    References
    ----------
    The paper, Appendix C, "Exposed tools and runtime restrictions".
    """
    return [search(search_url=search_url), fetch(), read_pdf()]
