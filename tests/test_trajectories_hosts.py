"""Hosts of URLs, a task's site, and what counts as being on it (as a browser reads URLs)."""

from __future__ import annotations

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories import host_of, on_site, task_sites, url_list
from sgr_kit.trajectories.hosts import check_sites, first_url


@pytest.mark.parametrize("url, host", [
    ("https://www.census.gov/data", "census.gov"),
    ("HTTP://User:pw@Data.Census.GOV:8443/x?y=1#z", "data.census.gov"),
    ("api.census.gov/data/2020/acs", "api.census.gov"),
    ("https://www.arxiv.org.", "arxiv.org"),
    ("ftp://ftp.ncei.noaa.gov/pub", ""),  # only http(s) reaches a website
    ("/home/user/notes.txt", ""),
    ("just words", ""),
    ("http://[::1", ""),
    ("", ""),
])
def test_host_of_normalises(url, host):
    assert host_of(url) == host


def test_subdomains_count_and_lookalikes_do_not():
    sites = ("census.gov",)
    assert on_site("census.gov", sites) and on_site("api.census.gov", sites) and on_site("a.b.census.gov", sites)
    assert not on_site("notcensus.gov", sites) and not on_site("census.gov.evil.org", sites)
    assert not on_site("", sites)


def test_url_list_reads_lists_json_text_and_free_text():
    assert url_list(["https://a.org/x", " ", 3]) == ("https://a.org/x",)
    assert url_list('["https://a.org/x", "https://b.org/y"]') == ("https://a.org/x", "https://b.org/y")
    assert url_list("see https://a.org/x; and https://b.org/y.") == ("https://a.org/x", "https://b.org/y")
    assert url_list("[not json https://a.org/z") == ("https://a.org/z",)
    assert url_list(None) == () and url_list(42) == ()


def test_task_sites_from_start_url_and_involved_urls(make_task):
    import dataclasses

    task = dataclasses.replace(make_task(("id",), rows=[("a",)]), start_url="https://www.ncei.noaa.gov/access/",
                               all_involved_urls=("https://www.ncei.noaa.gov/cag/", "https://data.noaa.gov/x"))
    assert task_sites(task) == ("data.noaa.gov", "ncei.noaa.gov")
    bare = make_task(("id",), rows=[("a",)])
    assert task_sites(bare) == ()
    with pytest.raises(SgrKitError, match=r"task .*: no start_url or all_involved_urls with a web host"):
        check_sites(bare.task_id, task_sites(bare))


def test_first_url_searches_nested_arguments():
    assert first_url({"a": [1, {"cmd": "wget https://x.org/f.csv)"}]}) == "https://x.org/f.csv"
    assert first_url({"a": "none"}) == ""


# Every way the host rule was fooled before it followed the WHATWG URL Standard and the Public
# Suffix List: (url, the task's site, the host a browser goes to, whether it is on the site).
FOOLING = [
    # a backslash is a slash in http(s): the browser goes to evil.example, arxiv.org is the path
    ("https://evil.example\\@arxiv.org/", "arxiv.org", "evil.example", False),
    ("https://evil.example\\.arxiv.org/", "arxiv.org", "evil.example", False),
    ("https://user@arxiv.org/abs/1", "arxiv.org", "arxiv.org", True),
    # schemes that reach no website
    ("javascript://arxiv.org/%0aalert(1)", "arxiv.org", "", False),
    ("ftp://arxiv.org/pub", "arxiv.org", "", False),
    ("file://arxiv.org/etc/passwd", "arxiv.org", "", False),
    ("data:text/html,https://arxiv.org/", "arxiv.org", "", False),
    # www. is not stripped where what remains is a public suffix
    ("https://www.gov.uk/browse", "www.gov.uk", "www.gov.uk", True),
    ("https://hmrc.gov.uk/", "www.gov.uk", "hmrc.gov.uk", False),
    ("https://www.hmrc.gov.uk/", "www.gov.uk", "hmrc.gov.uk", False),
    ("https://evil.co.uk/", "www.gov.uk", "evil.co.uk", False),
    # Unicode and punycode spellings of one name are one host
    ("https://b\u00fccher.example/", "xn--bcher-kva.example", "xn--bcher-kva.example", True),
    ("https://xn--bcher-kva.example/", "b\u00fccher.example", "xn--bcher-kva.example", True),
    ("https://B\u00dcCHER.example/", "xn--bcher-kva.example", "xn--bcher-kva.example", True),
    # ideographic and full-width dots and letters, percent-encoded dots
    ("https://arxiv\u3002org/abs/1", "arxiv.org", "arxiv.org", True),
    ("https://arxiv\uff0eorg/abs/1", "arxiv.org", "arxiv.org", True),
    ("https://\uff41\uff52\uff58\uff49\uff56.org/", "arxiv.org", "arxiv.org", True),
    ("https://arxiv%2Eorg/abs/1", "arxiv.org", "arxiv.org", True),
    ("https://export.arxiv%2eorg/", "arxiv.org", "export.arxiv.org", True),
    # same registrable domain: one site; a look-alike registrable domain is not
    ("https://export.arxiv.org/api", "arxiv.org", "export.arxiv.org", True),
    ("https://notarxiv.org/", "arxiv.org", "notarxiv.org", False),
    ("https://arxiv.org.evil.example/", "arxiv.org", "arxiv.org.evil.example", False),
    ("https://api.census.gov/data", "data.census.gov", "api.census.gov", True),
    ("https://alice.github.io/", "bob.github.io", "alice.github.io", False),  # private section counts
    # addresses without a registrable domain are the site only when equal
    ("http://0x7f.1/", "127.0.0.1", "127.0.0.1", True),
    ("http://127.0.0.2/", "127.0.0.1", "127.0.0.2", False),
    # scheme-less addresses and ports
    ("arxiv\u3002org/abs/1", "arxiv.org", "arxiv.org", True),
    ("https://ARXIV.org.:8443/", "arxiv.org", "arxiv.org", True),
]


@pytest.mark.parametrize("url, site, host, reached", FOOLING)
def test_hosts_are_read_as_a_browser_reads_them_and_sites_compared_by_registrable_domain(url, site, host, reached):
    assert host_of(url) == host
    assert on_site(host_of(url), [host_of(site) or site]) is reached


def test_a_task_site_under_a_public_suffix_keeps_its_www(make_task):
    import dataclasses

    task = dataclasses.replace(make_task(("id",), rows=[("a",)]), start_url="https://www.gov.uk/search",
                               all_involved_urls=("https://www.arxiv.org/x", "javascript://census.gov/"))
    assert task_sites(task) == ("arxiv.org", "www.gov.uk")


def test_the_public_suffix_list_is_the_bundled_snapshot_never_fetched(monkeypatch):
    import socket

    from sgr_kit.trajectories import hosts

    def no_network(*args, **kwargs):
        raise AssertionError("the host rule tried to reach the network")

    hosts._suffixes.cache_clear()
    hosts.registrable_domain.cache_clear()
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    assert hosts.registrable_domain("a.b.gov.uk") == "b.gov.uk"
