"""site_reach: per-answer measures, against a plain loop written independently, and its errors."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.schema import SITE_REACH_COLUMNS, STEP_COLUMNS
from sgr_kit.trajectories import load_trajectories, site_reach

SITES = {"census_001": "https://www.census.gov/data.html", "arxiv_001": "https://arxiv.org/search/advanced"}
HOSTS = ["", "census.gov", "api.census.gov", "notcensus.gov", "arxiv.org", "export.arxiv.org", "scholar.example"]


@pytest.fixture
def tasks(make_task):
    base = make_task(("id",), rows=[("a",)])
    return {tid: dataclasses.replace(base, task_id=tid, base_id=tid, start_url=url) for tid, url in SITES.items()}


def random_steps(rng: np.random.Generator, n: int = 60) -> pd.DataFrame:
    rows = []
    for k in range(n):
        system, task_id, repeat = f"s{k % 3}", list(SITES)[k % 2], k // 6
        for i in range(int(rng.integers(0, 9))):
            kind = str(rng.choice(["search", "fetch", "pdf", "tool", "message", "answer"]))
            host = str(rng.choice(HOSTS)) if kind in ("fetch", "pdf", "tool") else ""
            host = host or ("x.org" if kind in ("fetch", "pdf") else "")
            query = str(rng.choice(["q1", "q2", "q3"])) if kind == "search" else ""
            rows.append({"system": system, "task_id": task_id, "repeat": repeat, "step": i, "kind": kind,
                         "tool": kind, "url": f"https://{host}/p" if host else "", "host": host, "query": query,
                         "text": "", "t": float(rng.choice([np.nan, i * 1.5])),
                         "tokens": rng.choice([None, int(rng.integers(1, 100))])})
    return pd.DataFrame(rows).astype({c: d for c, d in STEP_COLUMNS.items() if d != "Int64"}).astype(
        {"tokens": "Int64"})


def by_hand(steps: pd.DataFrame) -> dict:
    """The measures written out as a loop over steps: the definitions of the docstring, nothing shared."""
    site = {"census_001": "census.gov", "arxiv_001": "arxiv.org"}
    out = {}
    for key, part in steps.groupby(["system", "task_id", "repeat"], sort=False):
        s = site[key[1]]
        reached = [h == s or h.endswith("." + s) for h in part["host"]]
        web = [u != "" for u in part["url"]]
        on_web = [r and w for r, w in zip(reached, web)]
        first = [st for st, r in zip(part["step"], reached) if r]
        times = [t for t in part["t"] if not math.isnan(t)]
        tokens = [int(t) for t in part["tokens"] if not pd.isna(t)]
        out[key] = {
            "steps": len(part), "tool_calls": sum(k in ("search", "fetch", "pdf", "tool") for k in part["kind"]),
            "hosts": len({h for h in part["host"] if h}), "reached_site": bool(first),
            "first_site_step": min(first) if first else None,
            "site_fetch_share": sum(on_web) / sum(web) if sum(web) else None,
            "searches": sum(k == "search" for k in part["kind"]), "fetches": sum(k == "fetch" for k in part["kind"]),
            "pdfs": sum(k == "pdf" for k in part["kind"]), "other_tools": sum(k == "tool" for k in part["kind"]),
            "queries": len({q for q, k in zip(part["query"], part["kind"]) if k == "search" and q}),
            "time": max(times) if times else None,
            "tokens": sum(tokens) if tokens and len(tokens) == len(part) else None,  # a partial sum is no total
        }
    return out


def test_site_reach_agrees_with_a_plain_loop(rng, tasks):
    steps = random_steps(rng)
    table = site_reach(steps, tasks)
    assert list(table.columns) == list(SITE_REACH_COLUMNS)
    expected = by_hand(steps)
    assert len(table) == len(expected)
    for row in table.to_dict("records"):
        want = expected[(row["system"], row["task_id"], row["repeat"])]
        for column, value in want.items():
            got = row[column]
            if value is None:
                assert pd.isna(got), column
            else:
                assert got == pytest.approx(value), column


def test_tokens_are_the_agents_totals_else_every_steps_sum(tmp_path, tasks):
    steps = [{"kind": "fetch", "url": "https://census.gov/a", "tokens": 100},
             {"kind": "answer", "text": "a|1", "tokens": 20}]  # fmt: skip
    records = [
        {"system": "a", "task_id": "census_001", "steps": steps},
        {"system": "b", "task_id": "census_001", "steps": [steps[0], {"kind": "answer", "text": "a|1"}]},
        {"system": "c", "task_id": "census_001", "steps": steps[:1],
         "totals": {"input_tokens": 5000, "cached_input_tokens": 4000, "output_tokens": 70}},
        {"system": "d", "task_id": "census_001", "steps": steps, "totals": {"input_tokens": 5000}},
        {"system": "e", "task_id": "census_001", "steps": [], "totals": {"input_tokens": 9, "output_tokens": 1}},
    ]  # fmt: skip
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    tokens = site_reach(path, tasks).set_index("system")["tokens"]
    assert tokens["a"] == 120 and pd.isna(tokens["b"])  # every step's tokens, else unknown
    assert tokens["c"] == 5070 and tokens["e"] == 10  # the agent's own input + output
    assert tokens["d"] == 120  # the totals lack the output: the steps' sum
    with pytest.raises(SgrKitError, match="tool_kinds: a steps table's kinds were decided when it was read"):
        site_reach(load_trajectories(path), tasks, tool_kinds={"fetch": "tool"})


def test_from_a_path_equals_from_the_table(tmp_path, rng, tasks):
    steps = random_steps(rng, n=40)
    path = tmp_path / "t.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for (system, task_id, repeat), part in steps.groupby(["system", "task_id", "repeat"], sort=False):
            f.write(json.dumps({"system": system, "task_id": task_id, "repeat": int(repeat), "steps": [
                {"kind": r.kind, "url": r.url or None, "query": r.query or None,
                 "t": None if math.isnan(r.t) else r.t, "tokens": None if pd.isna(r.tokens) else int(r.tokens)}
                for r in part.itertuples()]}) + "\n")
        f.write(json.dumps({"system": "s9", "task_id": "arxiv_001", "steps": []}) + "\n")  # no step at all
    from_path = site_reach(path, tasks)
    from_table = site_reach(load_trajectories(path), tasks)
    pd.testing.assert_frame_equal(from_path.iloc[:-1], from_table, check_dtype=True)
    last = from_path.iloc[-1]
    assert (last["system"], last["steps"], last["reached_site"], pd.isna(last["first_site_step"])) == \
        ("s9", 0, False, True)


def test_unknown_task_and_task_without_site_are_errors(rng, tasks):
    steps = random_steps(rng, n=4)
    with pytest.raises(SgrKitError, match=r"unknown task id 'census_001' .*closest known ids: census_002"):
        site_reach(steps, {"census_002": tasks["census_001"], "arxiv_001": tasks["arxiv_001"]})
    no_site = dict(tasks, census_001=dataclasses.replace(tasks["census_001"], start_url=""))
    with pytest.raises(SgrKitError, match=r"task census_001: no start_url or all_involved_urls"):
        site_reach(steps, no_site)
    with pytest.raises(SgrKitError, match=r"trajectories lacks column\(s\) host"):
        site_reach(steps.drop(columns="host"), tasks)
    with pytest.raises(SgrKitError, match=r"tasks: expected the TaskSet"):
        site_reach(steps, "tasks.jsonl")


def test_involved_urls_widen_the_site(rng, tasks):
    steps = random_steps(rng, n=12)
    wider = dict(tasks, arxiv_001=dataclasses.replace(tasks["arxiv_001"],
                                                      all_involved_urls=("https://scholar.example/",)))
    before, after = site_reach(steps, tasks), site_reach(steps, wider)
    arxiv = before["task_id"] == "arxiv_001"
    assert (after.loc[arxiv, "reached_site"] >= before.loc[arxiv, "reached_site"]).all()
    assert after.loc[~arxiv].equals(before.loc[~arxiv])
