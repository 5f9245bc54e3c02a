"""The protocol audit: each flag on a trajectory made to raise it and on one made not to."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.prepare import load_tasks
from sgr_kit.resources import demo_paths
from sgr_kit.trajectories import load_trajectories
from sgr_kit.trajectories.protocol import FLAG_COLUMNS, FLAGS, PAPER_PROTOCOL, protocol_flags, read_protocol
from sgr_kit.types import Schema, Task

PAPER = Path(__file__).resolve().parents[1] / ".." / "shared" / "paper" / "sgr-bench-paper.txt"


def _steps(*rows: dict, system: str = "s", task_id: str = "t_001", repeat: int = 0) -> pd.DataFrame:
    out = []
    for i, row in enumerate(rows):
        out.append({"system": system, "task_id": task_id, "repeat": repeat, "step": i, "kind": row["kind"],
                    "tool": row.get("tool", ""), "url": row.get("url", ""), "host": "", "query": row.get("query", ""),
                    "text": "", "t": row.get("t", float("nan")), "tokens": None})  # fmt: skip
    return pd.DataFrame(out)


def _clean(**times) -> list[dict]:
    t = times.get("t", (10.0, 200.0, 400.0, 450.0))
    return [{"kind": "search", "tool": "web_search", "query": "census county tables", "t": t[0]},
            {"kind": "fetch", "tool": "fetch", "url": "https://data.census.gov/table", "t": t[1]},
            {"kind": "pdf", "tool": "read_pdf", "url": "https://census.gov/a.pdf", "t": t[2]},
            {"kind": "answer", "text": "a|1", "t": t[3]}]  # fmt: skip


def _flags(steps: pd.DataFrame | Path, **kw) -> list[str]:
    return protocol_flags(steps, **kw)["flag"].tolist()


def test_a_clean_run_raises_no_flag():
    out = protocol_flags(_steps(*_clean()))
    assert out.empty and list(out.columns) == list(FLAG_COLUMNS)


def test_over_budget_from_the_reported_duration_else_the_last_step():
    steps = _steps(*_clean())
    usage = pd.DataFrame({"system": ["s"], "task_id": ["t_001"], "repeat": [0], "seconds": [6000.5]})
    out = protocol_flags(steps, usage=usage, protocol={"stall_seconds": None})
    assert out["flag"].tolist() == ["over_budget"]
    assert out["detail"].iloc[0] == "ran 6,000 s (the agent's reported duration); budget 6,000 s"
    assert _flags(steps, usage=usage.assign(seconds=5999.0), protocol={"stall_seconds": None}) == []
    late = _steps(*_clean(t=(10.0, 2000.0, 4000.0, 6100.0)))
    assert _flags(late) == ["over_budget"]  # last step at 6,100 s, no gap over 3,000 s
    assert _flags(_steps(*_clean(t=(10.0, 2000.0, 4000.0, 5900.0)))) == []


def test_stalled_between_steps_at_the_start_or_before_the_end():
    assert _flags(_steps(*_clean(t=(10.0, 3100.0, 3200.0, 3300.0)))) == ["stalled"]  # 3,090 s between steps
    assert _flags(_steps(*_clean(t=(3001.0, 3100.0, 3200.0, 3300.0)))) == ["stalled"]  # before the first step
    assert _flags(_steps(*_clean(t=(10.0, 2900.0, 5800.0, 5900.0)))) == []  # gaps of 2,890 s and 2,900 s
    usage = pd.DataFrame({"system": ["s"], "task_id": ["t_001"], "repeat": [0], "seconds": [3500.0]})
    out = protocol_flags(_steps(*_clean()), usage=usage)  # hung 3,050 s after its answer step
    assert out["flag"].tolist() == ["stalled"] and "to the end of the run" in out["detail"].iloc[0]
    # without step times nothing can be said about stalls
    assert _flags(_steps(*_clean(t=(float("nan"),) * 4))) == []


def test_a_tool_outside_the_protocol_a_shell_or_a_disabled_native_tool():
    curl = {"kind": "tool", "tool": "Bash", "url": "https://api.census.gov/data", "t": 300.0}
    out = protocol_flags(_steps(*_clean()[:2], curl, *_clean()[2:]))
    assert out["flag"].tolist() == ["tool_outside_protocol"]
    assert out["detail"].iloc[0] == "1 call(s): step 2: Bash (tool) https://api.census.gov/data"
    native = {"kind": "fetch", "tool": "WebFetch", "url": "https://census.gov/x", "t": 300.0}
    assert _flags(_steps(*_clean()[:2], native, *_clean()[2:])) == ["tool_outside_protocol"]
    # the same calls under a profile that allows other tools and disables none
    loose = {"allowed_kinds": ["search", "fetch", "pdf", "tool"], "disabled_tools": None}
    assert _flags(_steps(*_clean()[:2], curl, native, *_clean()[2:]), protocol=loose) == []


def test_tool_kinds_are_those_the_trajectories_are_read_with(tmp_path):
    # a search tool whose name does not say so is a search when tool_kinds says it is
    call = {"id": "c1", "type": "function", "function": {"name": "serper", "arguments": json.dumps({"q": "x"})}}
    record = {"system": "s", "task_id": "t_001", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "results"},
        {"role": "assistant", "content": "a|1"}]}  # fmt: skip
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert _flags(path) == ["tool_outside_protocol"]
    assert _flags(path, tool_kinds={"serper": "search"}) == []
    assert _flags(load_trajectories(path, tool_kinds={"serper": "search"})) == []
    with pytest.raises(SgrKitError, match=r"tool_kinds: a steps table's kinds were decided when it was read"):
        protocol_flags(load_trajectories(path), tool_kinds={"serper": "search"})


def _task() -> Task:
    return Task("t_001", "t_001", "constraint", "CENSUS_GOV", "census", "statistical portals",
                Schema(("county", "population"), ("county",)),
                "county|population\nLoving County, Texas|64\nKalawao County, Hawaii|82", 2, "1-2",
                start_url="https://data.census.gov/")  # fmt: skip


@pytest.mark.parametrize("visit", [
    {"kind": "fetch", "tool": "fetch", "url": "https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH/tree/main"},
    {"kind": "tool", "tool": "python", "url": "https://hf.co/datasets/PKUAIWeb/SGR-BENCH"},
    {"kind": "search", "tool": "web_search", "query": "SGR-Bench census county answer"},
    {"kind": "search", "tool": "web_search", "query": "sgr bench leaderboard"},
    {"kind": "fetch", "tool": "fetch", "url": "https://github.com/someone/sgr_bench-solutions"},
    {"kind": "search", "tool": "web_search", "query": "Benchmarking Search Agents on State-Gated Retrieval pdf"},
    {"kind": "search", "tool": "web_search", "query": "\"Loving County, Texas | 64\""},
])  # fmt: skip
def test_benchmark_visited_by_its_page_name_title_or_reference_text(visit):
    steps = _steps(*_clean()[:2], {**visit, "t": 300.0}, *_clean()[2:])
    allow_tools = {"allowed_kinds": ["search", "fetch", "pdf", "tool"]}
    out = protocol_flags(steps, [_task()], protocol=allow_tools)
    assert out["flag"].tolist() == ["benchmark_visited"]
    assert out["detail"].iloc[0].startswith("step 2: ")


@pytest.mark.parametrize("visit", [
    {"kind": "search", "tool": "web_search", "query": "Loving County Texas population"},  # a cell, not a whole line
    {"kind": "search", "tool": "web_search", "query": "county population"},  # the header line
    {"kind": "fetch", "tool": "fetch", "url": "https://huggingface.co/datasets/census/other"},
    {"kind": "search", "tool": "web_search", "query": "sgrbenchmark-unrelated"},
])  # fmt: skip
def test_near_misses_are_not_visits_of_the_benchmark(visit):
    steps = _steps(*_clean()[:2], {**visit, "t": 300.0}, *_clean()[2:])
    assert _flags(steps, tasks=[_task()]) == []


def test_without_tasks_the_reference_check_is_left_out():
    steps = _steps(*_clean()[:2], {"kind": "search", "query": "Loving County, Texas|64", "t": 300.0}, *_clean()[2:])
    assert _flags(steps) == [] and _flags(steps, tasks=[_task()]) == ["benchmark_visited"]


def test_the_paper_profile_transcribes_the_paper():
    text = PAPER.read_text(encoding="utf-8")
    budget = re.search(r"maximum runtime per task is (\d+) seconds; runs are marked as stalled after (\d+) seconds "
                       r"without trace progress", text)  # fmt: skip
    assert budget and (float(budget[1]), float(budget[2])) == (PAPER_PROTOCOL.budget_seconds,
                                                               PAPER_PROTOCOL.stall_seconds)
    assert "disables the Claude-native WebSearch and WebFetch tools" in text
    assert set(PAPER_PROTOCOL.disabled_tools) == {"WebSearch", "WebFetch"}
    assert "only three external retrieval tool classes: Serper search, fetch-based webpage reading, and PDF " \
           "reading" in text and PAPER_PROTOCOL.allowed_kinds == ("search", "fetch", "pdf")
    page = re.search(r"https://huggingface\.co/datasets/[\w-]+/[\w-]+", text)[0]
    assert page.removeprefix("https://") in PAPER_PROTOCOL.benchmark_urls


def test_none_turns_the_audit_off_and_a_file_overrides_the_paper(tmp_path):
    steps = _steps(*_clean(t=(10.0, 2000.0, 4000.0, 6100.0)))
    assert protocol_flags(steps, protocol="none").empty
    yaml_file = tmp_path / "lab.yaml"
    yaml_file.write_text("budget_seconds: 7200\n")
    assert _flags(steps, protocol=yaml_file) == []
    json_file = tmp_path / "lab.json"
    json_file.write_text(json.dumps({"budget_seconds": 1800, "stall_seconds": 1000}))
    assert _flags(steps, protocol=json_file) == ["over_budget", "stalled"]
    assert read_protocol(json_file).allowed_kinds == PAPER_PROTOCOL.allowed_kinds  # the rest from the paper


@pytest.mark.parametrize(("text", "message"), [
    ("budget_seconds: -5\n", r"lab\.yaml: budget_seconds must be a number of seconds > 0 or null; found -5"),
    ("allowed_kinds: [search, web]\n", r"lab\.yaml: allowed_kinds: 'web' is not a tool kind"),
    ("budget: 10\n", r"lab\.yaml: unknown key 'budget'"),
    ("budget_seconds: [1\n", r"lab\.yaml:2: column 1: not valid YAML"),
])  # fmt: skip
def test_a_bad_profile_file_says_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "lab.yaml"
    path.write_text(text)
    with pytest.raises(SgrKitError, match=message):
        read_protocol(path)
    with pytest.raises(SgrKitError, match=r"expected 'paper', 'none' or a YAML/JSON profile file; no such file"):
        read_protocol("papers")


def test_one_row_per_answer_and_flag_with_a_path_or_a_table(tmp_path):
    path = tmp_path / "runs.jsonl"
    records = [{"system": "s", "task_id": "t_001", "repeat": 0, "steps": [
        {"kind": "tool", "tool": "Bash", "url": "https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH/resolve/main/"
                                                "constraint.jsonl", "t": 5.0},
        {"kind": "tool", "tool": "Bash", "args": {"command": "ls"}, "t": 3300.0},
        {"kind": "answer", "text": "a|1", "t": 3301.0}]},
        {"system": "s", "task_id": "t_001", "repeat": 1, "steps": _clean()}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = protocol_flags(path, [_task()])
    assert out[["repeat", "flag"]].values.tolist() == [[0, "stalled"], [0, "tool_outside_protocol"],
                                                       [0, "benchmark_visited"]]
    assert out["detail"].iloc[1].startswith("2 call(s): step 0: Bash (tool) https://huggingface.co/")
    pd.testing.assert_frame_equal(out, protocol_flags(load_trajectories(path), [_task()]))
    assert set(out["flag"]) <= set(FLAGS)


def test_the_demo_has_a_few_runs_with_each_flag():
    paths = demo_paths()
    flags = protocol_flags(paths["trajectories"], load_tasks(paths["constraint"], paths["goal"]))
    counts = flags["flag"].value_counts()
    assert counts["benchmark_visited"] == 1
    assert 100 < counts["tool_outside_protocol"] < 200  # the demo's python and sub-agent calls, and WebFetch
    assert "WebFetch" in " ".join(flags.loc[flags["flag"] == "tool_outside_protocol", "detail"])
    # without the agents' reported durations (read with the usage table) the demo's stalls are after the last step
    assert "over_budget" not in counts and "stalled" not in counts


def test_a_run_without_steps_is_checked_by_its_reported_duration():
    usage = pd.DataFrame({"system": ["s", "s"], "task_id": ["t_001", "t_002"], "repeat": [0, 0],
                          "seconds": [400.0, 6500.0]})
    out = protocol_flags(_steps(*_clean()), usage=usage)
    assert out[["task_id", "flag"]].values.tolist() == [["t_002", "over_budget"], ["t_002", "stalled"]]
