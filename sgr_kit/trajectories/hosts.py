"""Hosts of URLs and the website of a task.

A task's *site* is the set of hosts of its ``start_url`` and of every URL in its
``all_involved_urls`` (the release's fields, kept on :class:`~sgr_kit.types.Task`). A URL is
*on the site* when its host, normalised by :func:`host_of` (lower case, no ``www.``, no port,
no user), is one of the site's hosts **or a subdomain of one** (``export.arxiv.org`` is on
``arxiv.org``). Subdomains count because agents use a site's API and mirror hosts
(``api.census.gov`` for ``census.gov``); a different registered domain never counts.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable
from urllib.parse import urlsplit

from ..errors import SgrKitError
from ..types import Task

__all__ = ["host_of", "url_list", "task_sites", "on_site", "first_url"]

_URL = re.compile(r"https?://[^\s\"'<>|\\^`{}]+", re.IGNORECASE)
_BARE_HOST = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(/|$)", re.IGNORECASE)


def host_of(url: str) -> str:
    """The normalised host of ``url``: lower case, without ``www.``, port or user; ``""`` for no URL.

    A URL without a scheme whose first part looks like a host name (``arxiv.org/abs/1``) is
    read as a web address; anything else (a file path, a bare word) has no host.

    Examples
    --------
    >>> host_of("https://WWW.ArXiv.org:443/search/advanced?x=1")
    'arxiv.org'
    >>> host_of("export.arxiv.org/api/query"), host_of("notes/a.txt"), host_of("")
    ('export.arxiv.org', '', '')
    """
    if not isinstance(url, str) or not url.strip():
        return ""
    text = url.strip()
    if "://" not in text:
        if not _BARE_HOST.match(text):
            return ""
        text = "//" + text
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:  # e.g. an invalid IPv6 literal
        return ""
    host = host.rstrip(".").lower()
    return host[4:] if host.startswith("www.") else host


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
    """True when ``host`` (normalised) is one of ``sites`` or a subdomain of one.

    Examples
    --------
    >>> on_site("api.census.gov", ["census.gov"]), on_site("notcensus.gov", ["census.gov"])
    (True, False)
    """
    if not host:
        return False
    return any(host == s or host.endswith("." + s) for s in sites)


def check_sites(task_id: str, sites: tuple[str, ...]) -> tuple[str, ...]:
    """Raise when a task names no site (no ``start_url`` or ``all_involved_urls`` with a host)."""
    if not sites:
        raise SgrKitError(
            f"task {task_id}: no start_url or all_involved_urls with a web host; the task's site is unknown, "
            f"so whether a trajectory reached it cannot be said (load the tasks from release files that keep "
            f"start_url)"
        )
    return sites
