"""What a run cost: price files (CSV, YAML), costs reported where reported and tokens x prices elsewhere."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.resources import demo_dir, demo_paths
from sgr_kit.trajectories import trajectory_usage
from sgr_kit.trajectories.cost import call_cost, is_example_prices, price_usage, read_prices
from sgr_kit.trajectories.usage import USAGE_COLUMNS, USAGE_EXTRAS

PRICES_CSV = """# EXAMPLE prices for a test, not real ones
system,model,input,cached_input,output,per_search,note
sys-a,,2.0,0.5,8.0,,EXAMPLE
,m-big,3.0,0.3,15.0,0.01,EXAMPLE
"""


def _usage(**columns) -> pd.DataFrame:
    base = {"system": ["sys-a"], "task_id": ["t1"], "repeat": [0], "model": [None], "searches": [2],
            "input_tokens": [1_000_000], "cached_input_tokens": [600_000], "output_tokens": [50_000],
            "reasoning_tokens": [20_000], "cost_usd": [None]}  # fmt: skip
    base.update({k: [v] if not isinstance(v, list) else v for k, v in columns.items()})
    return pd.DataFrame(base)


@pytest.fixture
def prices(tmp_path) -> Path:
    path = tmp_path / "prices.csv"
    path.write_text(PRICES_CSV, encoding="utf-8")
    return path


def test_a_call_costs_fresh_input_cached_input_and_output_at_their_prices():
    # computed by hand from the formula: 400k fresh x 2 + 600k cached x 0.5 + 50k out x 8, per million
    assert call_cost(1_000_000, 600_000, 50_000, input=2.0, cached_input=0.5, output=8.0) == pytest.approx(
        (400_000 * 2.0 + 600_000 * 0.5 + 50_000 * 8.0) / 1e6)
    assert call_cost(0, 0, 0, input=9.0, cached_input=9.0, output=9.0) == 0.0


def test_csv_and_yaml_price_files_read_the_same(prices, tmp_path):
    yaml_path = tmp_path / "prices.yaml"
    yaml_path.write_text("- system: sys-a\n  input: 2.0\n  cached_input: 0.5\n  output: 8.0\n"
                         "- model: m-big\n  input: 3\n  cached_input: 0.3\n  output: 15\n  per_search: 0.01\n")
    a, b = read_prices(prices), read_prices(yaml_path)
    cols = ["match", "name", "input", "cached_input", "output", "per_search"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert a["source"].tolist() == [f"{prices}:3", f"{prices}:4"]
    assert b["source"].tolist() == [f"{yaml_path}:1", f"{yaml_path}:5"]


@pytest.mark.parametrize(("text", "message"), [
    ("system,input,cached_input,output\nsys-a,2,-1,8\n", r"prices\.csv:2: column 3: column 'cached_input': expected "
     r"a price in USD per million tokens \(a number from 0 to 1,000,000\); found '-1'"),
    ("system,input,cached_input,output\nsys-a,1_000,1,8\n", r"prices\.csv:2: column 2: column 'input': .* found '1_000'"),
    ("system,input,cached_input,output\nsys-a,2,\uff11\uff12,8\n",
     r"prices\.csv:2: column 3: column 'cached_input': .* found '\uff11\uff12'"),
    ("system,input,cached_input,output\nsys-a,2,1,1e300\n", r"prices\.csv:2: column 4: column 'output': expected a "
     r"price in USD per million tokens \(a number from 0 to 1,000,000\); found '1e300'"),
    ("system,input,cached_input,output\nsys-a,inf,1,1\n", r"prices\.csv:2: column 2: .* found 'inf'"),
    ("system,input,cached,output\nsys-a,2,1,8\n", r"prices\.csv:1: column 3: unknown column 'cached'"),
    ("system,input,output\nsys-a,2,8\n", r"prices\.csv:2: column 'cached_input' is missing"),
    ("system,model,input,cached_input,output\na,m,1,1,1\n",
     r"prices\.csv:2: expected a system or a model .*found both"),
    ("system,input,cached_input,output\na,1,1,1\na,2,2,2\n", r"prices\.csv:3: system 'a' is priced twice \(first at "
     r".*prices\.csv:2\)"),
    ("system,input,cached_input,output\na,1,1\n", r"prices\.csv:2: 3 cell\(s\); the header has 4"),
])  # fmt: skip
def test_a_bad_price_file_names_file_line_and_column(tmp_path, text, message):
    path = tmp_path / "prices.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SgrKitError, match=message):
        read_prices(path)


def test_a_bad_yaml_price_names_its_line_and_column(tmp_path):
    path = tmp_path / "prices.yml"
    path.write_text("prices:\n  - model: m\n    input: 1\n    cached_input: free\n    output: 2\n")
    with pytest.raises(SgrKitError, match=r"prices\.yml:4: column 19: column 'cached_input': expected a price .* "
                                          r"found 'free'"):  # fmt: skip
        read_prices(path)
    other = tmp_path / "prices.txt"
    other.write_text("x", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"expected a \.csv, \.yaml or \.yml file"):
        read_prices(other)
    with pytest.raises(SgrKitError, match=r"no such file"):
        read_prices(tmp_path / "missing.csv")


@pytest.mark.parametrize("price", ["1_000", "0x10", "1e300", ".inf", "\uff11\uff12"])
def test_a_yaml_price_is_read_as_written_and_a_spelling_python_alone_reads_is_refused(tmp_path, price):
    # YAML 1.1 reads 1_000 and 0x10 as numbers; a price is plain decimal, at most 1,000,000
    path = tmp_path / "prices.yaml"
    path.write_text(f"- model: m\n  input: 1\n  cached_input: {price}\n  output: 2\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=rf"prices\.yaml:3: column 17: column 'cached_input': expected a "
                                          rf"price .*; found '{price}'"):  # fmt: skip
        read_prices(path)
    path.write_text("- model: m\n  input: 1\n  cached_input: '0.5'\n  output: 2.5e-1\n", encoding="utf-8")
    assert read_prices(path)[["input", "cached_input", "output"]].iloc[0].tolist() == [1.0, 0.5, 0.25]


def test_reported_costs_are_kept_and_the_others_priced_from_tokens(prices):
    usage = _usage(system=["sys-a", "sys-a", "sys-b", "sys-c"], task_id=["t1", "t2", "t1", "t1"], repeat=[0] * 4,
                   model=[None, None, "M-Big", "m-small"], searches=[2, 2, 3, 1],
                   input_tokens=[1_000_000, 1_000_000, 200_000, 10], cached_input_tokens=[600_000, 600_000, 0, 0],
                   output_tokens=[50_000, 50_000, 10_000, 10], reasoning_tokens=[20_000, 20_000, None, None],
                   cost_usd=[0.42, None, None, None])  # fmt: skip
    out = price_usage(usage, prices)
    assert out["cost_source"].tolist() == ["reported", "priced", "priced", "unknown"]
    assert out["cost_usd"].iloc[0] == 0.42  # the agent's own figure, never replaced
    table = read_prices(prices).set_index("name")
    a = table.loc["sys-a"]
    assert out["cost_usd"].iloc[1] == pytest.approx(
        call_cost(1_000_000, 600_000, 50_000, input=a["input"], cached_input=a["cached_input"], output=a["output"]))
    big = table.loc["m-big"]  # matched by model, case-insensitively; with its price per search
    assert out["cost_usd"].iloc[2] == pytest.approx(
        call_cost(200_000, 0, 10_000, input=big["input"], cached_input=big["cached_input"], output=big["output"])
        + 3 * big["per_search"])
    assert math.isnan(out["cost_usd"].iloc[3])  # no price row: unknown, never 0
    assert usage["cost_usd"].isna().sum() == 3  # the input is not changed


def test_unknown_tokens_leave_the_cost_unknown(prices):
    out = price_usage(_usage(output_tokens=[None]), prices)
    assert out["cost_source"].tolist() == ["unknown"] and out["cost_usd"].isna().all()
    # cached input not reported: unknown when the cached price differs, priced when it does not
    assert price_usage(_usage(cached_input_tokens=[None]), prices)["cost_source"].tolist() == ["unknown"]
    flat = pd.DataFrame({"system": ["sys-a"], "input": [2.0], "cached_input": [2.0], "output": [8.0]})
    out = price_usage(_usage(cached_input_tokens=[None]), flat)
    assert out["cost_source"].tolist() == ["priced"]
    assert out["cost_usd"].iloc[0] == pytest.approx((1_000_000 * 2.0 + 50_000 * 8.0) / 1e6)


def test_without_prices_only_reported_costs_are_known():
    out = price_usage(_usage(system=["a", "b"], task_id=["t", "t"], repeat=[0, 0], cost_usd=[0.1, None],
                             input_tokens=[1, 2], cached_input_tokens=[0, 0], output_tokens=[1, 1],
                             reasoning_tokens=[0, 0], model=[None, None], searches=[0, 0]))  # fmt: skip
    assert out["cost_source"].tolist() == ["reported", "unknown"]
    assert out["cost_usd"].iloc[0] == 0.1 and math.isnan(out["cost_usd"].iloc[1])


def test_the_demo_ships_example_prices_marked_as_an_example():
    path = demo_dir() / "prices-example.csv"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# EXAMPLE") and "not the real prices" in text.lower()
    table = read_prices(path)
    assert len(table) >= 2 and set(table["match"]) == {"system", "model"}
    rows = [line for line in text.splitlines() if line and not line.startswith("#")][1:]
    assert all(line.endswith("EXAMPLE (not a real price)") for line in rows)


def test_usage_counts_kinds_and_hosts_and_says_where_seconds_and_costs_came_from(tmp_path):
    record = {"system": "s", "task_id": "t", "steps": [
        {"kind": "search", "tool": "web_search", "query": "q", "t": 1.0, "input_tokens": 10, "output_tokens": 1},
        {"kind": "fetch", "tool": "fetch", "url": "https://a.org/x", "t": 2.0, "input_tokens": 20},
        {"kind": "fetch", "tool": "fetch", "url": "https://a.org/y", "t": 3.0},
        {"kind": "tool", "tool": "python", "t": 4.5},
        {"kind": "answer", "text": "a|1"}]}  # fmt: skip
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    u = trajectory_usage(path)
    assert list(u.columns) == [*USAGE_COLUMNS, *USAGE_EXTRAS]  # the columns in their order, extras after
    row = u.iloc[0]
    assert [row[c] for c in ("steps", "tool_calls", "searches", "fetches", "other_tools", "hosts")] == [5, 4, 1, 2, 1,
                                                                                                         1]
    # the steps without usage keys made no model call; a call without its output count leaves the output
    # unknown, never a partial sum
    assert row["input_tokens"] == 30 and pd.isna(row["output_tokens"]) and pd.isna(row["cached_input_tokens"])
    assert row["seconds"] == 4.5 and row["seconds_source"] == "last_step" and row["model"] == ""
    assert row["cost_source"] == "unknown" and math.isnan(row["cost_usd"])  # without prices: reported or unknown


def test_usage_takes_the_tool_kinds_of_the_trajectories_reader(tmp_path):
    call = {"id": "c1", "type": "function", "function": {"name": "serper", "arguments": json.dumps({"q": "x"})}}
    record = {"system": "s", "task_id": "t", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "results"},
        {"role": "assistant", "content": "a|1"}]}  # fmt: skip
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert trajectory_usage(path)[["searches", "other_tools"]].values.tolist() == [[0, 1]]  # the name rule
    kinds = tmp_path / "kinds.csv"
    kinds.write_text("tool,kind\nserper,search\n")
    assert trajectory_usage(path, tool_kinds=kinds)[["searches", "other_tools"]].values.tolist() == [[1, 0]]


def test_a_records_totals_are_read_and_checked(tmp_path):
    path = tmp_path / "runs.jsonl"
    good = {"system": "s", "task_id": "t", "totals": {"cost_usd": 0.5, "seconds": 12.0, "model": "m-1",
                                                      "input_tokens": 900},
            "steps": [{"kind": "answer", "text": "a|1", "t": 3.0, "input_tokens": 100, "output_tokens": 5}]}
    path.write_text(json.dumps(good) + "\n")
    row = trajectory_usage(path).iloc[0]
    assert (row["cost_usd"], row["seconds"], row["model"], row["input_tokens"], row["output_tokens"]) == (
        0.5, 12.0, "m-1", 900, 5)  # the agent's totals first, the calls' sum for what they leave out
    assert row["cost_source"] == "reported" and row["seconds_source"] == "reported"
    for totals, message in [
        ({"cost_usd": -1}, r"runs\.jsonl:2: totals\.cost_usd must be a number >= 0 or null; found -1"),
        ({"seconds": "long"}, r"runs\.jsonl:2: totals\.seconds must be a number >= 0 or null; found 'long'"),
        ({"input_tokens": 1.5}, r"runs\.jsonl:2: totals\.input_tokens must be a whole number >= 0"),
        ({"model": 7}, r"runs\.jsonl:2: totals\.model must be a string; found 7$"),
        ({"cost": 1}, r"runs\.jsonl:2: totals\.cost is not a total; expected some of input_tokens"),
        ([1, 2], r"runs\.jsonl:2: totals must be an object"),
    ]:  # fmt: skip
        path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "totals": totals}) + "\n")
        with pytest.raises(SgrKitError, match=message):
            trajectory_usage(path)


def test_the_demo_costs_are_reported_for_some_systems_and_priced_for_others():
    prices = demo_dir() / "prices-example.csv"
    assert is_example_prices(prices)
    usage = trajectory_usage(demo_paths()["trajectories"], prices=prices)
    sources = usage.groupby("system")["cost_source"].agg(lambda s: set(s))
    assert {frozenset(v) for v in sources} == {frozenset({"reported"}), frozenset({"priced"}),
                                               frozenset({"unknown"})}  # fmt: skip
    assert (usage["seconds_source"] == "reported").all() and (usage["model"] != "").all()
    # one priced run by hand, from its own record: the steps' tokens summed, times its system's (or model's) row
    first = usage[usage["cost_source"] == "priced"].iloc[0]
    lines = demo_paths()["trajectories"].read_text(encoding="utf-8").splitlines()
    record = next(r for r in map(json.loads, lines) if (r["system"], r["task_id"], r.get("repeat", 0)) ==
                  (first["system"], first["task_id"], first["repeat"]))  # fmt: skip
    steps = record["steps"]
    fresh = sum(s["input_tokens"] - s["cached_input_tokens"] for s in steps)
    cached = sum(s["cached_input_tokens"] for s in steps)
    out = sum(s["output_tokens"] for s in steps)
    searches = sum(s["kind"] == "search" for s in steps)
    row = read_prices(prices)
    row = row[(row["name"] == first["system"]) | (row["name"] == record["totals"]["model"])].iloc[0]
    assert first["cost_usd"] == pytest.approx((fresh * row["input"] + cached * row["cached_input"]
                                               + out * row["output"]) / 1e6 + searches * row["per_search"])
    assert first["seconds"] == record["totals"]["seconds"]
    reported = usage[usage["cost_source"] == "reported"].iloc[0]
    record = next(r for r in map(json.loads, lines) if (r["system"], r["task_id"], r.get("repeat", 0)) ==
                  (reported["system"], reported["task_id"], reported["repeat"]))  # fmt: skip
    assert reported["cost_usd"] == record["totals"]["cost_usd"]  # the agent's own, never replaced


# --- fixtures of each transcript format ---
# Claude Code stream-json: the final "result" line carries total_cost_usd and duration_ms (the line
# format of Claude Code's --output-format stream-json, as in tests/test_trajectories_agents.py);
# OpenAI chat messages carry usage.prompt_tokens / completion_tokens / prompt_tokens_details.cached_tokens /
# completion_tokens_details.reasoning_tokens (OpenAI Chat Completions API reference, the response's "usage"
# object, kept on the assistant message) and no cost; the documented step format
# carries per-step token keys and the record's "totals".

def _claude(folder: Path) -> None:
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s1", "model": "m-big", "tools": ["mcp__web__search"]},
        {"type": "assistant", "message": {"id": "msg_1", "model": "m-big", "role": "assistant", "content": [
            {"type": "tool_use", "id": "tu_1", "name": "mcp__web__search", "input": {"query": "census tables"}}],
            "usage": {"input_tokens": 1000, "cache_read_input_tokens": 0, "output_tokens": 50}}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu_1", "content": "results"}]}},
        {"type": "assistant", "message": {"id": "msg_2", "model": "m-big", "role": "assistant", "content": [
            {"type": "text", "text": "a|1"}], "usage": {"input_tokens": 1200, "output_tokens": 20}}},
        {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 42500, "num_turns": 2,
         "result": "a|1", "session_id": "s1", "total_cost_usd": 0.12,
         "usage": {"input_tokens": 2200, "output_tokens": 70}},
    ]  # fmt: skip
    (folder / "claude-sys").mkdir()
    (folder / "claude-sys" / "t1.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def _native(folder: Path) -> None:
    record = {"system": "sys-a", "task_id": "t1", "repeat": 0, "totals": {"cost_usd": None, "seconds": 30.0,
                                                                          "model": None},
              "steps": [{"kind": "search", "query": "q", "t": 1.0, "input_tokens": 1000, "cached_input_tokens": 0,
                         "output_tokens": 100, "reasoning_tokens": 40},
                        {"kind": "answer", "text": "a|1", "t": 20.0, "input_tokens": 1500,
                         "cached_input_tokens": 1000, "output_tokens": 10, "reasoning_tokens": 0}]}  # fmt: skip
    (folder / "native.jsonl").write_text(json.dumps(record) + "\n")


def _chat(folder: Path) -> None:
    usage = {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960,
             "prompt_tokens_details": {"cached_tokens": 300}, "completion_tokens_details": {"reasoning_tokens": 20}}
    lines = [
        {"role": "user", "content": "List the counties."},
        {"role": "assistant", "content": None, "usage": usage, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "web_search",
                                                              "arguments": json.dumps({"query": "county table"})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "results"},
        {"role": "assistant", "content": "a|1", "usage": usage},
    ]  # fmt: skip
    (folder / "chat-sys").mkdir()
    (folder / "chat-sys" / "t1.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")


def test_costs_from_each_transcript_format_reported_or_priced(tmp_path, prices):
    _claude(tmp_path)
    _native(tmp_path)
    _chat(tmp_path)
    table = pd.concat([read_prices(prices), read_prices(pd.DataFrame(
        {"system": ["chat-sys"], "input": [1.0], "cached_input": [0.1], "output": [4.0]}))], ignore_index=True)
    usage = trajectory_usage(tmp_path, prices=table).set_index("system")
    assert usage.loc["claude-sys", "cost_source"] == "reported"
    assert usage.loc["claude-sys", "cost_usd"] == pytest.approx(0.12)
    a = read_prices(prices).set_index("name").loc["sys-a"]
    assert usage.loc["sys-a", "cost_source"] == "priced"
    assert usage.loc["sys-a", "cost_usd"] == pytest.approx(
        call_cost(2500, 1000, 110, input=a["input"], cached_input=a["cached_input"], output=a["output"]))
    assert usage.loc["chat-sys", "cost_source"] == "priced"  # two calls of 900 in (300 cached), 60 out each
    assert usage.loc["chat-sys", "cost_usd"] == pytest.approx(
        call_cost(1800, 600, 120, input=1.0, cached_input=0.1, output=4.0))
    assert np.isfinite(usage["cost_usd"]).all()


def test_a_price_row_matching_no_system_or_model_warns_with_the_closest_name(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("system,model,input,cached_input,output\nsys-b,,2.0,0.5,8.0\n,m-bgi,3,0.3,15\nsys-a,,1,1,1\n",
                    encoding="utf-8")  # fmt: skip
    usage = _usage(system=["sys-a", "sys-c"], task_id=["t1", "t1"], repeat=[0, 0], model=["m-big", "m-big"],
                   searches=[2, 2], input_tokens=[10, 10], cached_input_tokens=[0, 0], output_tokens=[1, 1],
                   reasoning_tokens=[0, 0], cost_usd=[None, None])  # fmt: skip
    with pytest.warns(UserWarning) as caught:
        out = price_usage(usage, path)
    messages = [str(w.message) for w in caught]
    assert messages == [
        f"{path}:2: price row for system 'sys-b' matches no system of the runs (closest: 'sys-c', 'sys-a'); its "
        f"prices are not used",
        f"{path}:3: price row for model 'm-bgi' matches no model of the runs (closest: 'm-big'); its prices are not "
        f"used"]  # fmt: skip
    assert out["cost_source"].tolist() == ["priced", "unknown"]  # sys-c has no price: unknown, never 0
