"""Hosts of URLs and the website of a task, read as a browser reads them.

A task's *site* is the set of hosts of its ``start_url`` and of every URL in its
``all_involved_urls`` (the release's fields, kept on :class:`~sgr_kit.types.Task`).

**Hosts.** :func:`host_of` parses a URL by the WHATWG URL Standard, the rules browsers
follow (the ``ada-url`` library, the parser of Node.js): in ``http`` and ``https`` URLs a
backslash is a slash (``https://evil.example\\@arxiv.org/`` goes to ``evil.example``), the
host is percent-decoded (``arxiv%2Eorg``), mapped by IDNA/UTS #46 (full-width letters and
the dots ``。．｡`` become ASCII; Unicode names become their punycode ``xn--`` form, so both
spellings of a name are one host) and lower-cased; IPv4 numbers are written in dotted
decimal. Only ``http`` and ``https`` URLs have a host here: ``javascript:``, ``ftp:``,
``file:``, ``data:`` and other schemes reach no website. The port, the user and a final
dot are dropped, and so is a leading ``www.`` unless what follows it is a public suffix
(``www.gov.uk`` stays ``www.gov.uk``).

**Sites.** A URL is *on the site* when its host and one of the site's hosts are the same
site as browsers define it: the same *registrable domain* (the public suffix, from the
Public Suffix List, plus one label). ``export.arxiv.org`` and ``arxiv.org`` are one site,
as are ``api.census.gov`` and ``www.census.gov``; ``notarxiv.org`` is not ``arxiv.org``, and
``hmrc.gov.uk`` is not ``www.gov.uk`` (``gov.uk`` is a public suffix, so each name under it is
a site of its own). Hosts without a registrable domain (IP addresses, ``localhost``, a
public suffix itself) are on the site only when equal. The list is the snapshot bundled
with the ``publicsuffixlist`` library (nothing is fetched at run time); its private section
counts too, as in browsers (``a.github.io`` and ``b.github.io`` are different sites).
"""

from __future__ import annotations

import functools
import ipaddress
import json
import re
from typing import Any, Iterable, NamedTuple
from urllib.parse import parse_qsl, unquote

from ada_url import URL

from ..errors import SgrKitError
from ..types import Task

__all__ = ["host_of", "url_list", "task_sites", "on_site", "first_url", "all_urls", "web_url", "WebUrl",
           "registrable_domain"]

_URL = re.compile(r"https?://[^\s\"'<>|\\^`{}]+", re.IGNORECASE)
#: A scheme-less web address: a host name with at least one dot (any of the dots IDNA maps
#: to ``.``), an optional port, then a path, query, fragment or the end.
_BARE_HOST = re.compile(r"^[\w%-]+([.\u3002\uff0e\uff61][\w%-]+)+(:\d+)?([/?#]|$)")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_WEB = ("http:", "https:")
_SURROGATE = re.compile("[\ud800-\udfff]")


@functools.lru_cache(maxsize=1)
def _suffixes():
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()  # the bundled snapshot of the Public Suffix List; never fetched


def _is_ip(host: str) -> bool:
    if host.startswith("["):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=65536)
def registrable_domain(host: str) -> str:
    """The registrable domain of a normalised ``host`` (public suffix plus one label), or ``""``.

    ``""`` for an IP address, a single label, or a public suffix itself.

    Examples
    --------
    >>> registrable_domain("export.arxiv.org"), registrable_domain("www.gov.uk"), registrable_domain("gov.uk")
    ('arxiv.org', 'www.gov.uk', '')
    >>> registrable_domain("192.168.0.1"), registrable_domain("a.github.io")
    ('', 'a.github.io')
    """
    if not host or _is_ip(host):
        return ""
    return _suffixes().privatesuffix(host) or ""


def _parse(text: str) -> URL | None:
    if "://" not in text and _BARE_HOST.match(text):
        text = "http://" + text
    elif not _SCHEME.match(text):
        return None  # a path or a word: no web address
    try:
        url = URL(text)
    except ValueError:  # not a URL by the WHATWG rules (e.g. an invalid IPv6 literal)
        return None
    return url if url.protocol in _WEB else None


def _normal_host(url: URL) -> str:
    host = url.hostname.rstrip(".")
    if host.startswith("www.") and registrable_domain(host[4:]):
        host = host[4:]
    return host


def _host(text: str) -> str:
    url = _parse(text)
    return "" if url is None else _normal_host(url)


def host_of(url: str) -> str:
    """The host of ``url`` as a browser reads it, normalised; ``""`` for no ``http(s)`` URL.

    Parsed by the WHATWG URL rules (see the module docstring): lower case, IDNA (punycode),
    percent-decoded, without port, user, final dot or a ``www.`` before a registrable name.
    A URL without a scheme whose first part looks like a host name (``arxiv.org/abs/1``) is
    read as a web address; anything else (a file path, a bare word, another scheme) has no host.

    Examples
    --------
    >>> host_of("https://WWW.ArXiv.org:443/search/advanced?x=1"), host_of("https://evil.example\\\\@arxiv.org/")
    ('arxiv.org', 'evil.example')
    >>> host_of("https://arxiv\u3002org/abs"), host_of("https://arxiv%2Eorg/"), host_of("https://www.gov.uk/x")
    ('arxiv.org', 'arxiv.org', 'www.gov.uk')
    >>> host_of("javascript://arxiv.org/%0aalert(1)"), host_of("ftp://arxiv.org/"), host_of("file://arxiv.org/")
    ('', '', '')
    >>> host_of("export.arxiv.org/api/query"), host_of("notes/a.txt"), host_of("")
    ('export.arxiv.org', '', '')
    """
    if not isinstance(url, str) or not url.strip():
        return ""
    return _host(url.strip())


def first_url(value: Any) -> str:
    """The first ``http(s)`` URL written anywhere in ``value`` (text, or JSON data), or ``""``.

    Examples
    --------
    >>> first_url({"command": "curl -s 'https://api.census.gov/data/2020?get=NAME' | head"})
    'https://api.census.gov/data/2020?get=NAME'
    """
    if isinstance(value, str):
        found = _URL.search(value)
        return found.group(0).rstrip(".,;:)]") if found else ""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value:
            url = first_url(item)
            if url:
                return url
    return ""


def all_urls(value: Any, *, limit: int = 20) -> tuple[str, ...]:
    """Every ``http(s)`` URL written anywhere in ``value`` (text, or JSON data), distinct, at most ``limit``.

    What a shell command or another tool's arguments reach (``curl A && curl B`` reaches both).
    Lone surrogates (no Unicode character) become U+FFFD.

    Examples
    --------
    >>> all_urls({"command": "curl -s https://a.org/x && wget 'https://hf.co/datasets/x/y' -O -"})
    ('https://a.org/x', 'https://hf.co/datasets/x/y')
    """
    found: dict[str, None] = {}
    stack = [value]
    while stack and len(found) < limit:
        item = stack.pop()
        if isinstance(item, str):
            for match in _URL.finditer(item):
                found[_SURROGATE.sub("\ufffd", match.group(0).rstrip(".,;:)]"))] = None
                if len(found) >= limit:
                    break
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return tuple(found)


class WebUrl(NamedTuple):
    """A web address as a server reads it (:func:`web_url`).

    Attributes
    ----------
    host : str
        The host, normalised as :func:`host_of` gives it.
    path : str
        The path, percent-decoded once.
    query : str
        The query (without ``?``), percent-decoded once.
    params : tuple of (str, str)
        The query's name and value pairs, each decoded.
    """

    host: str
    path: str
    query: str
    params: tuple[tuple[str, str], ...]


def web_url(url: str) -> WebUrl | None:
    """``url`` parsed as a browser does (:func:`host_of`), its path and query percent-decoded; None for no web URL.

    ``host`` is normalised as :func:`host_of` gives it; ``path`` and ``query`` are percent-decoded
    once, as the server decodes them (``%53GR`` is ``SGR``, ``PKUAIWeb%2FSGR-BENCH`` is
    ``PKUAIWeb/SGR-BENCH``), and ``params`` holds the query's ``(name, value)`` pairs decoded.

    Examples
    --------
    >>> web_url("https://datasets-server.huggingface.co/rows?dataset=PKUAIWeb%2FSGR-BENCH&split=test")
    WebUrl(host='datasets-server.huggingface.co', path='/rows', query='dataset=PKUAIWeb/SGR-BENCH&split=test', \
params=(('dataset', 'PKUAIWeb/SGR-BENCH'), ('split', 'test')))
    >>> web_url("https://HF.co/datasets/PKUAIWeb/%53GR-BENCH").path, web_url("notes/a.txt")
    ('/datasets/PKUAIWeb/SGR-BENCH', None)
    """
    if not isinstance(url, str) or not url.strip():
        return None
    parsed = _parse(url.strip())
    if parsed is None:
        return None
    search = parsed.search[1:]
    return WebUrl(_normal_host(parsed), unquote(parsed.pathname, errors="replace"),
                  unquote(search, errors="replace"),
                  tuple(parse_qsl(search, keep_blank_values=True, errors="replace")))  # fmt: skip


def url_list(value: Any) -> tuple[str, ...]:
    """The URLs of a release's ``all_involved_urls`` field: a list, a JSON-encoded list or free text.

    Examples
    --------
    >>> url_list('["https://arxiv.org/a", "https://arxiv.org/b"]')
    ('https://arxiv.org/a', 'https://arxiv.org/b')
    >>> url_list("https://a.org/x, https://b.org/y"), url_list(None)
    (('https://a.org/x', 'https://b.org/y'), ())
    """
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = text
        if isinstance(value, str):
            return tuple(m.group(0).rstrip(".,;:)]") for m in _URL.finditer(value))
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if isinstance(v, str) and v.strip())
    return ()


def task_sites(task: Task) -> tuple[str, ...]:
    """The hosts of a task's site: of its ``start_url`` and of its ``all_involved_urls`` (sorted, distinct).

    Examples
    --------
    >>> from sgr_kit.types import Schema, Task
    >>> t = Task("a_001", "a_001", "constraint", "ARXIV", "arXiv", "scholarly archives", Schema(("id",), ("id",)),
    ...          "id\\n1", 1, "1-2", start_url="https://arxiv.org/search/advanced",
    ...          all_involved_urls=("https://export.arxiv.org/abs/1", "https://www.arxiv.org/x"))
    >>> task_sites(t)
    ('arxiv.org', 'export.arxiv.org')
    """
    urls = (task.start_url, *task.all_involved_urls)
    return tuple(sorted({h for h in map(host_of, urls) if h}))


def on_site(host: str, sites: Iterable[str]) -> bool:
    """True when ``host`` (normalised by :func:`host_of`) is the same site as one of ``sites``.

    The same site: equal, or the same registrable domain (:func:`registrable_domain`; see
    the module docstring).

    Examples
    --------
    >>> on_site("api.census.gov", ["census.gov"]), on_site("notcensus.gov", ["census.gov"])
    (True, False)
    >>> on_site("hmrc.gov.uk", ["www.gov.uk"]), on_site("www.gov.uk", ["www.gov.uk"])
    (False, True)
    """
    if not host:
        return False
    domain = registrable_domain(host)
    return any(host == s or (domain and domain == registrable_domain(s)) for s in sites)


def check_sites(task_id: str, sites: tuple[str, ...]) -> tuple[str, ...]:
    """Raise when a task names no site (no ``start_url`` or ``all_involved_urls`` with a host)."""
    if not sites:
        raise SgrKitError(
            f"task {task_id}: no start_url or all_involved_urls with a web host; the task's site is unknown, "
            f"so whether a trajectory reached it cannot be said (load the tasks from release files that keep "
            f"start_url)"
        )
    return sites
