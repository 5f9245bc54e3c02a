"""Hosts of URLs, a task's site, and what counts as being on it."""

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
    ("ftp://ftp.ncei.noaa.gov/pub", "ftp.ncei.noaa.gov"),
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
