"""Gemini CLI session files (``sgr_kit.trajectories.gemini``) on fixtures in the shapes of Gemini CLI's own source.

Fixtures: ``tests/fixtures/trajectories/gemini/`` (where each shape comes from and for which
version: ``tests/fixtures/trajectories/README.md``, section "Gemini CLI"). Expected numbers are
computed from the files' own records.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories import iter_trajectories, load_trajectories, trajectory_usage
from sgr_kit.trajectories.gemini import GeminiReader, sniff

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "trajectories" / "gemini"
LEGACY = FIXTURES / "session-2025-10-21T08-30-3b7c2a90.json"
STREAM = FIXTURES / "session-2026-05-03T09-12-7c1e9d24.jsonl"


def read(path: Path):
    [tr] = iter_trajectories(path, notes=lambda _: None)
    return tr


def test_a_legacy_session_document_becomes_steps_with_searches_and_fetches():
    tr = read(LEGACY)
    assert tr.format == "gemini-cli" and (tr.system, tr.task_id) == ("gemini-2.5-pro", LEGACY.stem)
    assert [(s.kind, s.tool, s.host) for s in tr.steps] == [
        ("search", "google_web_search", ""), ("fetch", "web_fetch", "data.census.gov"), ("answer", "", "")]
    assert tr.steps[0].query == "Boulder County Colorado 2020 census population"
    assert "330,758" in tr.steps[0].text and tr.steps[1].text.startswith("[error] Error during fetch")
    assert tr.answer == "county|population\nBoulder County, Colorado|330758"
    assert [s.t for s in tr.steps] == [pytest.approx(8.882), pytest.approx(21.98), pytest.approx(41.75)]


def test_tokens_count_thoughts_in_output_and_cached_in_input():
    doc = json.loads(LEGACY.read_text(encoding="utf-8"))
    tokens = [m["tokens"] for m in doc["messages"] if m["type"] == "gemini"]
    assert all(t["total"] == t["input"] + t["output"] + t["thoughts"] + t["tool"] for t in tokens)
    row = trajectory_usage(LEGACY).iloc[0]
    assert row["input_tokens"] == sum(t["input"] + t["tool"] for t in tokens)
    assert row["output_tokens"] == sum(t["output"] + t["thoughts"] for t in tokens)
    assert row["reasoning_tokens"] == sum(t["thoughts"] for t in tokens)
    assert row["cached_input_tokens"] == sum(t["cached"] for t in tokens)
    steps = load_trajectories(LEGACY)
    assert (steps["input_tokens"].sum(), steps["output_tokens"].sum()) == (row["input_tokens"], row["output_tokens"])
    # the main model first (most output), Google's grounded searches, seconds from the session's times
    assert row["model"] == "gemini-2.5-pro, gemini-2.5-flash" and row["provider_searches"] == 1
    assert row["seconds"] == pytest.approx(41.75) and row["seconds_source"] == "timestamps"


def test_a_jsonl_session_keeps_each_records_last_version_and_follows_rewinds():
    """v0.39+: a record written again replaces the earlier one; ``$rewindTo`` drops it and what follows."""
    tr = read(STREAM)
    assert [(s.kind, s.tool) for s in tr.steps] == [("search", "google_web_search"), ("fetch", "web_fetch"),
                                                     ("answer", "")]  # fmt: skip
    assert tr.steps[0].text.startswith("An Image is Worth") and tr.steps[0].input_tokens == 9120 + 212
    assert tr.answer == "arxiv_id|v1_date\n2011.08019|2020-11-16"  # the rewound answer is gone
    assert tr.totals["seconds"] == pytest.approx(50.0) and tr.totals["provider_searches"] == 1


def test_errors_recorded_by_gemini_cli_are_a_note():
    said: list[str] = []
    list(iter_trajectories(LEGACY, notes=said.append))
    assert said[0] == f"{LEGACY}: read 1 file as Gemini CLI session"
    assert any("Gemini CLI recorded 1 error or warning message(s)" in n and "429" in n for n in said)


def test_sniffing_and_bad_records():
    assert sniff({"sessionId": "s", "projectHash": "h", "startTime": "x"}) and not sniff({"sessionId": "s"})
    reader = GeminiReader()
    with pytest.raises(SgrKitError, match=r"x\.jsonl:2: expected a Gemini CLI message record"):
        reader.line({"type": "gemini"}, loc="x.jsonl:2")
    reader = GeminiReader()
    reader.line({"id": "g", "timestamp": "2026-01-01T00:00:00Z", "type": "gemini", "content": "a",
                 "tokens": {"input": -1, "output": 2}}, loc="x.jsonl:3")
    with pytest.raises(SgrKitError, match=r"x\.jsonl:3: step 0: tokens\.input must be a whole number >= 0"):
        reader.finish()
    assert math.isnan(GeminiReader()._t({}, None))
