"""What real agents write, read as they write it: Claude Code stream-json and session logs, OpenAI
Responses API items, JSON and ``.txt`` files; usage as the agent counts it; web or not.

The fixtures' shapes and their sources (repository, path, version) are listed in
``tests/fixtures/trajectories/README.md``. Expected totals are computed here from the fixtures'
own summary lines, never copied.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.schema import STEP_COLUMNS, STEP_KINDS
from sgr_kit.trajectories import (FORMATS, TrajectoryFormat, TrajectoryNote, is_trajectory_source, iter_trajectories,
                                  load_trajectories, register_format, tool_kind_sources, trajectory_usage)
from sgr_kit.trajectories import formats as formats_module
from sgr_kit.trajectories import records as records_module
from sgr_kit.trajectories.usage import USAGE_COLUMNS, USAGE_EXTRAS

FIXTURES = Path(__file__).parent / "fixtures" / "trajectories"
CLAUDE = FIXTURES / "claude-code"
SESSION = FIXTURES / "claude-session"
RESPONSES = FIXTURES / "responses"


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrajectoryNote)
        return fn(*args, **kwargs)


def json_lines(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def write_lines(path: Path, objects: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


# --- Claude Code stream-json as it really streams ----------------------------------------------------------

def result_totals(path: Path) -> dict:
    """The run's totals computed from its result line: every model of modelUsage, else usage."""
    (result,) = [o for o in json_lines(path) if o.get("type") == "result"]
    models = result.get("modelUsage") or {}
    if models:
        rows = [(m["inputTokens"] + m["cacheReadInputTokens"] + m["cacheCreationInputTokens"], m["cacheReadInputTokens"],
                 m["outputTokens"]) for m in models.values()]
    else:
        u = result["usage"]
        rows = [(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"],
                 u["cache_read_input_tokens"], u["output_tokens"])]
    return {"input_tokens": sum(r[0] for r in rows), "cached_input_tokens": sum(r[1] for r in rows),
            "output_tokens": sum(r[2] for r in rows), "cost_usd": result["total_cost_usd"],
            "seconds": result["duration_ms"] / 1000}


def test_claude_code_totals_equal_the_result_line():
    table = quiet(trajectory_usage, CLAUDE)
    assert list(table.columns) == [*USAGE_COLUMNS, *USAGE_EXTRAS]
    usage = table.set_index("task_id")
    for path in sorted((CLAUDE / "Claude Opus 4.7").iterdir()):
        row = usage.loc[path.stem]
        expected = result_totals(path)
        for key, value in expected.items():
            assert row[key] == pytest.approx(value), (path.name, key)
        assert row["format"] == "claude-code"
    # the run: 64,241 input tokens, not 5 (57,775 from the cache and 6,464 written are input)
    first = usage.loc["arxiv_001"]
    assert first["input_tokens"] > 100 * first["tool_calls"]
    assert pd.isna(first["reasoning_tokens"])  # not reported: unknown, not 0


def test_claude_code_usage_per_message_id_and_placeholders_stay_unknown():
    path = CLAUDE / "Claude Opus 4.7" / "arxiv_001.jsonl"
    steps = quiet(load_trajectories, CLAUDE)
    steps = steps[steps["task_id"] == "arxiv_001"].reset_index(drop=True)
    lines = json_lines(path)
    by_id: dict[str, dict] = {}
    for o in lines:
        if o.get("type") == "assistant":
            u = o["message"]["usage"]
            by_id[o["message"]["id"]] = {"input": u["input_tokens"] + u["cache_read_input_tokens"]
                                         + u["cache_creation_input_tokens"], "cached": u["cache_read_input_tokens"]}
    # the usage of msg_01A sits on its thinking line and its ToolSearch line: counted once, on the tool step
    assert steps.loc[0, "tool"] == "ToolSearch" and steps.loc[0, "input_tokens"] == by_id["msg_01A"]["input"]
    assert steps.loc[0, "cached_input_tokens"] == by_id["msg_01A"]["cached"]
    # every line says "stop_reason": null: output counts are the stream's placeholders, unknown per step
    assert steps["output_tokens"].isna().all() and steps["tokens"].isna().all()
    # input counts are known per call and on the first step of each message only
    assert steps["input_tokens"].notna().sum() == len(by_id)
    assert steps["input_tokens"].sum() == sum(v["input"] for v in by_id.values())


def test_claude_code_usage_grows_on_the_last_line_and_a_thinking_only_message_still_counts(tmp_path):
    def line(mid, block, out, stop=None):
        return {"type": "assistant", "message": {"id": mid, "role": "assistant", "content": [block],
                                                 "stop_reason": stop, "usage": {"input_tokens": 10,
                                                 "cache_read_input_tokens": 90, "output_tokens": out}}}
    lines = [line("m1", {"type": "thinking", "thinking": "..."}, 1),
             line("m1", {"type": "tool_use", "id": "t1", "name": "WebSearch", "input": {"query": "q"}}, 1),
             line("m1", {"type": "text", "text": "done searching"}, 57, stop="tool_use"),
             line("m2", {"type": "thinking", "thinking": "only thinking"}, 30, stop="end_turn")]
    write_lines(tmp_path / "runs" / "s" / "t.jsonl", lines)
    (tr,) = quiet(lambda: list(iter_trajectories(tmp_path / "runs")))
    assert tr.steps[0].output_tokens == 57 and tr.steps[0].input_tokens == 100 and tr.steps[0].tokens == 157
    assert tr.totals is None  # no result line
    # the thinking-only message m2 is on no step but counted among the calls
    assert tr.calls_totals == {"input_tokens": 200, "cached_input_tokens": 180, "output_tokens": 87,
                               "reasoning_tokens": None}


def test_claude_code_one_answer_and_skipped_line_types():
    steps = quiet(load_trajectories, CLAUDE)
    for task, group in steps.groupby("task_id"):
        kinds = group["kind"].tolist()
        assert kinds.count("answer") <= 1
        answer = group.loc[group["kind"] == "answer", "text"]
        assert not (set(group.loc[group["kind"] == "message", "text"]) & set(answer))  # the answer only once
    first = steps[steps["task_id"] == "arxiv_001"]
    assert first["kind"].tolist() == ["tool", "message", "search", "fetch", "answer"]


def test_a_txt_transcript_with_log_lines_reads_as_its_jsonl_and_says_so():
    notes: list[str] = []
    found = {tr.task_id: tr for tr in iter_trajectories(CLAUDE, notes=notes.append)}
    assert found["arxiv_002"].steps == found["arxiv_001"].steps
    assert any("read 3 files as Claude Code stream-json" in n for n in notes)
    assert any("arxiv_002.txt: 1 line not JSON skipped" in n and "arxiv_002.txt:1" in n for n in notes)
    with pytest.warns(TrajectoryNote, match="as Claude Code stream-json"):
        load_trajectories(CLAUDE)


def test_a_log_line_in_brackets_is_skipped_in_a_stream(tmp_path):
    lines = json_lines(CLAUDE / "Claude Opus 4.7" / "arxiv_001.jsonl")
    write_lines(tmp_path / "runs" / "s" / "t.txt", ["[2026-09-20 17:22:38] starting claude", *lines])
    (tr,) = quiet(lambda: list(iter_trajectories(tmp_path / "runs")))
    assert tr.format == "claude-code" and tr.answer is not None


def test_a_log_line_in_the_documented_format_is_still_an_error(tmp_path):
    write_lines(tmp_path / "runs" / "s" / "t.txt", ["starting...", {"kind": "answer", "text": "a"}])
    with pytest.raises(SgrKitError, match=r"t\.txt:1: not valid JSON"):
        load_trajectories(tmp_path / "runs")


def test_claude_code_session_log_answer_is_the_last_text():
    path = SESSION / "Claude Sonnet 4.6" / "census_001.jsonl"
    (tr,) = quiet(lambda: list(iter_trajectories(SESSION)))
    assert tr.format == "claude-code-session"
    # no result line: the totals name the model of the assistant lines, no tokens (summed from the calls below)
    assert tr.totals["model"] == "claude-sonnet-4-6" and tr.totals["input_tokens"] is None
    texts = [b["text"] for o in json_lines(path) if o.get("type") == "assistant"
             for b in o["message"]["content"] if b["type"] == "text"]
    assert tr.answer == texts[-1] and [s.kind for s in tr.steps] == ["search", "answer"]
    # no summary: the totals are the sum over the calls, every one of them reported (stop_reason set)
    usage = quiet(trajectory_usage, SESSION).iloc[0]
    last = {}
    for o in json_lines(path):
        if o.get("type") == "assistant":
            last[o["message"]["id"]] = o["message"]["usage"]
    assert usage["output_tokens"] == sum(u["output_tokens"] for u in last.values())
    assert usage["input_tokens"] == sum(u["input_tokens"] + u["cache_read_input_tokens"]
                                        + u["cache_creation_input_tokens"] for u in last.values())
    assert pd.isna(usage["cost_usd"])


# --- OpenAI Responses API items --------------------------------------------------------------------------

def test_responses_items_as_a_json_list_and_as_response_objects():
    steps = quiet(load_trajectories, RESPONSES)
    for task in ("arxiv_001", "arxiv_002"):
        group = steps[steps["task_id"] == task]
        assert group["kind"].tolist() == ["search", "fetch", "fetch", "tool", "answer"]
    first = steps[steps["task_id"] == "arxiv_001"].reset_index(drop=True)
    assert first.loc[0, "query"] == "arXiv cs.CV 2020 Q4 vision transformer"
    assert first.loc[1, "host"] == "arxiv.org" and first.loc[3, "tool"] == "search_direct_flight"
    usage = quiet(trajectory_usage, RESPONSES).set_index("task_id")
    assert usage.loc["arxiv_001", ["input_tokens", "output_tokens", "reasoning_tokens"]].isna().all()
    calls = json_lines(RESPONSES / "GPT-5.5" / "arxiv_002.jsonl")
    assert usage.loc["arxiv_002", "input_tokens"] == sum(c["usage"]["input_tokens"] for c in calls)
    assert usage.loc["arxiv_002", "cached_input_tokens"] == sum(c["usage"]["input_tokens_details"]["cached_tokens"]
                                                                for c in calls)
    assert usage.loc["arxiv_002", "reasoning_tokens"] == sum(c["usage"]["output_tokens_details"]["reasoning_tokens"]
                                                             for c in calls)
    assert usage.loc["arxiv_002", "format"] == "openai-responses"


# --- web or not --------------------------------------------------------------------------------------------

def test_known_tools_decide_first_and_the_name_rule_needs_a_query_or_url(tmp_path):
    messages = [{"role": "assistant", "tool_calls": [
        {"id": str(i), "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate([
            ("ToolSearch", {"query": "select:WebSearch"}),
            ("mcp__code__search_code", {"q": "def main"}),
            ("search_direct_flight", {"origin": "SFO", "destination": "JFK", "date": "2024-05-01"}),
            ("mcp__serper__google_search", {"q": "census 2021"}),
            ("mcp__fetch__fetch", {"url": "https://data.census.gov/table"}),
            ("browse_page", {"url": "https://example.org/x.pdf"}),
        ])]}]
    path = write_lines(tmp_path / "t.jsonl", [{"system": "s", "task_id": "t", "messages": messages}])
    steps = load_trajectories(path)
    assert steps["kind"].tolist() == ["tool", "search", "tool", "search", "fetch", "pdf"]
    table = tool_kind_sources(path)
    by_name = dict(zip(table["tool"], table["decided_by"]))
    assert by_name == {"ToolSearch": "known", "mcp__code__search_code": "name", "search_direct_flight": "name",
                       "mcp__serper__google_search": "known", "mcp__fetch__fetch": "known", "browse_page": "name"}
    assert table["decided_by"].iloc[0] == "name" and table["calls"].sum() == 6
    # a user's file corrects the name rule: CSV and YAML
    (tmp_path / "kinds.csv").write_text("tool,kind\nsearch_code,tool\n", encoding="utf-8")
    (tmp_path / "kinds.yaml").write_text("mcp__code__search_code: tool\n", encoding="utf-8")
    for kinds in (tmp_path / "kinds.csv", tmp_path / "kinds.yaml"):
        fixed = load_trajectories(path, tool_kinds=kinds)
        assert fixed["kind"].tolist()[1] == "tool"
        assert "user" in set(tool_kind_sources(path, tool_kinds=kinds)["decided_by"])
    (tmp_path / "bad.csv").write_text("tool,kind\nx,web\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"bad\.csv: tool 'x': kind must be one of search, fetch, pdf, tool"):
        load_trajectories(path, tool_kinds=tmp_path / "bad.csv")


def test_validate_lists_the_tools_the_name_rule_classified(tmp_path, capsys):
    from sgr_kit.cli import main

    messages = [{"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {
        "name": "search_direct_flight", "arguments": json.dumps({"origin": "SFO"})}}]}]
    path = write_lines(tmp_path / "t.jsonl", [{"system": "s", "task_id": "t", "messages": messages}])
    code = main(["validate", "--trajectories", str(path)])
    out = capsys.readouterr().out
    assert code == 0 and "search_direct_flight" in out and "name rule" in out


# --- the registry of formats --------------------------------------------------------------------------------

class _Upper:
    totals = {"input_tokens": 7, "cached_input_tokens": None, "output_tokens": 3, "reasoning_tokens": None,
              "cost_usd": None, "seconds": None, "model": None}

    def __init__(self):
        self.steps = []

    def line(self, obj, *, loc):
        from sgr_kit.trajectories import Step
        self.steps.append(Step(kind="answer", text=obj["shout"].upper()))

    def finish(self):
        return self.steps


def test_a_format_registers_with_one_line_and_can_be_forced(tmp_path, monkeypatch):
    monkeypatch.setattr(formats_module, "FORMATS", list(FORMATS))
    register_format(TrajectoryFormat("shout", "shouted lines", lambda o: "shout" in o, _Upper))
    write_lines(tmp_path / "runs" / "s" / "t.jsonl", [{"shout": "a|1"}])
    notes: list[str] = []
    (tr,) = iter_trajectories(tmp_path / "runs", notes=notes.append)
    assert (tr.format, tr.answer, tr.totals["input_tokens"]) == ("shout", "A|1", 7)
    assert notes == [f"{tmp_path / 'runs'}: read 1 file as shouted lines"]
    assert trajectory_usage(tmp_path / "runs", format="shout")["output_tokens"].tolist() == [3]
    with pytest.raises(SgrKitError, match=r"unknown format 'nope'; expected one of records, steps"):
        load_trajectories(tmp_path / "runs", format="nope")
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: step 0: expected a Claude Code stream-json line"):
        load_trajectories(tmp_path / "runs", format="claude-code")


def test_json_files_and_detection_by_content(tmp_path):
    folder = tmp_path / "runs"
    (folder / "s").mkdir(parents=True)
    (folder / "s" / "t1.json").write_text(json.dumps([{"kind": "search", "query": "q"}, {"kind": "answer", "text": "a"}]),
                                         encoding="utf-8")
    (folder / "s" / "t2.json").write_text(json.dumps({"messages": [{"role": "assistant", "content": "b"}]}, indent=2),
                                         encoding="utf-8")
    records = tmp_path / "records.json"
    records.write_text(json.dumps([{"system": "s", "task_id": "t3", "steps": [{"kind": "answer", "text": "c"}]}]),
                       encoding="utf-8")
    found = [(tr.task_id, tr.answer, tr.format) for tr in quiet(lambda: list(iter_trajectories([folder, records])))]
    assert found == [("t1", "a", "steps"), ("t2", "b", "openai-chat"), ("t3", "c", "steps")]
    # answers in .txt/.json are not trajectories; stream transcripts in .txt are
    answers = tmp_path / "answers" / "s"
    answers.mkdir(parents=True)
    (answers / "t.txt").write_text("county|rate\nBeaufort|16.1\n", encoding="utf-8")
    (answers.parent / "s2").mkdir()
    (answers.parent / "s2" / "u.json").write_text(json.dumps([{"kind": "county", "name": "Beaufort"}]),
                                                 encoding="utf-8")
    assert not is_trajectory_source(tmp_path / "answers")
    assert is_trajectory_source(CLAUDE) and is_trajectory_source(RESPONSES) and is_trajectory_source(folder)


# --- hostile input -------------------------------------------------------------------------------------------

HUGE = "9" * 5000


@pytest.mark.parametrize("line, message", [
    ('{"kind": "answer", "text": "a", "tokens": ' + HUGE + "}", r"t\.jsonl:1: a number cannot be read"),
    ('{"kind": "answer", "text": "a", "tokens": 1e400}', r"t\.jsonl:1: step 0: tokens must be a whole number"),
    ('{"kind": "answer", "text": "a", "t": 1e400}', r"t\.jsonl:1: step 0: t \(seconds since the start\) must be"),
    ('{"kind": "answer", "text": "a", "tokens": 100000000000000000000000000000}',
     r"t\.jsonl:1: step 0: tokens must be a whole number >= 0 or null; found 1(0){29}$"),
    ('{"role": "assistant", "created": 1e400, "content": "x"}', None),
    ('{"role": "assistant", "usage": {"prompt_tokens": 1e400}, "content": "x"}',
     r"t\.jsonl:1: step 0: usage\.prompt_tokens must be a whole number"),
    ('{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{\\"n\\": '
     + HUGE + '}"}}]}', r"t\.jsonl:1: step 0: the arguments of tool call 'f' cannot be read"),
    ('{"type": "assistant", "message": {"id": ["m"], "content": []}}', r"t\.jsonl:1: step 0: message\.id must be text"),
    ('{"type": "assistant", "message": {"id": "m", "content": [], "usage": {"input_tokens": 1e400}}}',
     r"t\.jsonl:1: step 0: usage\.input_tokens must be a whole number"),
    ('{"type": "result", "result": "a", "usage": {"output_tokens": ' + "1" * 40 + "}}",
     r"t\.jsonl:1: step 0: usage\.output_tokens must be a whole number .* found 1{40}$"),
    ("[" * 100_000 + "]" * 100_000, r"t\.jsonl(:1)?: (JSON nested too deeply|expected|record 0)"),
])
def test_hostile_numbers_and_shapes_are_errors_naming_file_line_field_and_step(tmp_path, line, message):
    path = tmp_path / "runs" / "s" / "t.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(line + "\n", encoding="utf-8")
    if message is None:
        steps = quiet(load_trajectories, tmp_path / "runs")
        assert len(steps) == 1 and steps["t"].isna().all()  # an unreadable time is no time
        return
    with pytest.raises(SgrKitError, match=message):
        quiet(load_trajectories, tmp_path / "runs")


def test_deep_nesting_in_a_line_is_an_error(tmp_path):
    path = tmp_path / "runs" / "s" / "t.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"kind": "answer", "text": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: JSON nested too deeply"):
        load_trajectories(tmp_path / "runs")


@pytest.mark.parametrize("repeat", [10**30, "²", "1e3", -1, True])
def test_bad_repeats_are_errors(tmp_path, repeat):
    path = write_lines(tmp_path / "t.jsonl", [{"system": "s", "task_id": "t", "repeat": repeat, "steps": []}])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: repeat should be an integer >= 0"):
        load_trajectories(path)


@pytest.mark.parametrize("name", [str(10**30), "²"])
def test_bad_repeat_file_names_are_errors(tmp_path, name):
    write_lines(tmp_path / "runs" / "s" / "t" / f"{name}.jsonl", [{"kind": "answer", "text": "a"}])
    with pytest.raises(SgrKitError, match=r"expected <system>/<task_id>/<repeat>\.jsonl .* digits 0-9"):
        load_trajectories(tmp_path / "runs")


def test_lone_surrogates_are_replaced_and_the_table_can_be_written(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"system": "s\\ud800", "task_id": "t", "steps": [{"kind": "answer", "text": "a\\udfffb"}]}\n',
                    encoding="utf-8")
    notes: list[str] = []
    (tr,) = iter_trajectories(path, notes=notes.append)
    assert tr.system == "s\ufffd" and tr.answer == "a\ufffdb"
    assert any("lone surrogate" in n and "t.jsonl:1" in n for n in notes)
    pa.Table.from_pandas(load_trajectories(path))  # pyarrow takes it


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_folder_is_skipped_with_a_note(tmp_path):
    write_lines(tmp_path / "runs" / "s" / "t.jsonl", [{"kind": "answer", "text": "a"}])
    os.mkfifo(tmp_path / "runs" / "s" / "u.jsonl")
    os.mkfifo(tmp_path / "runs" / "top.jsonl")
    notes: list[str] = []
    found = list(iter_trajectories(tmp_path / "runs", notes=notes.append))
    assert [tr.task_id for tr in found] == ["t"]
    # one note for both (one kind of note, said once with the count and the first place)
    assert [n for n in notes if "not a regular file" in n] == [
        f"2 files: skipped (not a regular file or folder: a FIFO, socket or device is never read) "
        f"(first: {tmp_path / 'runs' / 's' / 'u.jsonl'})"]


def test_a_line_longer_than_the_limit_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(records_module, "MAX_LINE_BYTES", 1000)
    path = write_lines(tmp_path / "runs" / "s" / "t.jsonl", [{"kind": "answer", "text": "x" * 2000}])
    with pytest.raises(SgrKitError, match=r"t\.jsonl:1: line longer than 1,000 bytes"):
        load_trajectories(tmp_path / "runs")
    path.rename(path.with_suffix(".json"))
    with pytest.raises(SgrKitError, match=r"t\.json(:1)?: (line longer|a JSON document of)"):
        load_trajectories(tmp_path / "runs")


# --- property: any input gives a table or an SgrKitError naming where --------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from conftest import examples  # noqa: E402

KEYS = ["kind", "type", "role", "steps", "messages", "system", "task_id", "repeat", "url", "query", "text", "t",
        "tokens", "message", "content", "tool_calls", "function", "name", "arguments", "input", "id", "usage",
        "result", "duration_ms", "modelUsage", "total_cost_usd", "input_tokens", "output_tokens",
        "cache_read_input_tokens", "stop_reason", "parentUuid", "object", "output", "action", "call_id", "q",
        "inputTokens", "outputTokens", "tool_use_id", "timestamp", "answer"]
VALUES = ["search", "fetch", "answer", "assistant", "user", "result", "system", "tool_use", "tool_result", "text",
          "thinking", "rate_limit_event", "file-history-snapshot", "function_call", "web_search_call", "message",
          "response", "open_page", "output_text", "https://a.org/x", "WebFetch", "ToolSearch", "\ud800",
          "2026-01-01T00:00:00Z", '{"q": 1}', "{"]
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10**20), st.floats(allow_nan=True), st.sampled_from(VALUES),
              st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=7)),
    max_leaves=30,
)
LINES = st.lists(st.one_of(JSON.map(json.dumps), st.sampled_from(["{", "", "[]", "log line", "null"])), max_size=7)


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lines=LINES, suffix=st.sampled_from([".jsonl", ".json", ".txt"]))
def test_any_trajectory_file_gives_a_table_or_an_error_with_its_place(tmp_path, lines, suffix):
    folder = tmp_path / "fuzz"
    for old in folder.rglob("*.*"):
        old.unlink()
    path = folder / "s" / f"t_001{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    try:
        steps = quiet(load_trajectories, folder)
        usage = quiet(trajectory_usage, folder)
    except SgrKitError as exc:
        assert "t_001" in str(exc), str(exc)  # the file is named
        return
    assert list(steps.columns) == list(STEP_COLUMNS) and set(steps["kind"]) <= set(STEP_KINDS)
    assert list(usage.columns) == [*USAGE_COLUMNS, *USAGE_EXTRAS]
    pa.Table.from_pandas(steps)
    assert not steps["t"].isin([float("inf")]).any()
    for col in ("input_tokens", "output_tokens"):
        assert (usage[col].dropna() >= 0).all()



def test_chat_usage_details_and_an_unreported_call_leave_the_sum_unknown(tmp_path):
    def message(usage, text=None, call=None):
        out = {"role": "assistant", "content": text, "usage": usage}
        if call:
            out["tool_calls"] = [{"id": call, "type": "function", "function": {
                "name": "web_search", "arguments": json.dumps({"query": "q " + call})}}]
        return out
    full = {"prompt_tokens": 900, "completion_tokens": 120, "prompt_tokens_details": {"cached_tokens": 512},
            "completion_tokens_details": {"reasoning_tokens": 64}}
    path = write_lines(tmp_path / "t.jsonl", [
        {"system": "s", "task_id": "a", "messages": [message(full, call="1"), message(full, text="done")]},
        {"system": "s", "task_id": "b", "messages": [message(full, call="1"), message(None, text="done")]}])
    steps = load_trajectories(path)
    first = steps.iloc[0]
    assert (first["input_tokens"], first["cached_input_tokens"], first["output_tokens"], first["reasoning_tokens"],
            first["tokens"]) == (900, 512, 120, 64, 1020)
    usage = trajectory_usage(path).set_index("task_id")
    assert usage.loc["a", "input_tokens"] == 2 * full["prompt_tokens"]
    assert usage.loc["a", "reasoning_tokens"] == 2 * full["completion_tokens_details"]["reasoning_tokens"]
    # one call did not report its usage: the run's sum is unknown, not the known part
    assert usage.loc["b", ["input_tokens", "output_tokens"]].isna().all()


# --- the model of a run, provider searches, a file by itself (issue 29.5, 29.7, 29.8) ----------------------------

MODELS = Path(__file__).resolve().parent / "fixtures" / "trajectories" / "claude-models"


def test_a_session_log_names_its_model_from_the_assistant_lines():
    """Claude Code session logs have no result line; every assistant line names its model."""
    path = MODELS / "session-two-models.jsonl"
    (tr,) = iter_trajectories(path, notes=lambda _: None)
    # the main model (most output) first, the helper after it; the file given by itself takes the main one
    assert tr.totals["model"] == "claude-sonnet-4-5-20250929, claude-haiku-4-5-20251001"
    assert (tr.system, tr.task_id, tr.repeat) == ("claude-sonnet-4-5-20250929", "session-two-models", 0)
    # so a price row for its model prices a session log's run (its tokens summed over the calls)
    prices = pd.DataFrame({"model": ["claude-sonnet-4-6"], "input": [3.0], "cached_input": [0.3], "output": [15.0]})
    row = quiet(trajectory_usage, SESSION, prices=prices).iloc[0]
    assert (row["model"], row["cost_source"]) == ("claude-sonnet-4-6", "priced") and row["cost_usd"] > 0


def test_the_model_of_a_run_is_the_one_that_did_most_of_the_work_first():
    (tr,) = iter_trajectories(MODELS / "stream-two-models.jsonl", notes=lambda _: None)
    result = json_lines(MODELS / "stream-two-models.jsonl")[-1]
    assert list(result["modelUsage"])[0] == "claude-haiku-4-5-20251001"  # the log lists the helper first
    assert tr.totals["model"] == "claude-sonnet-4-5-20250929, claude-haiku-4-5-20251001"


@pytest.mark.parametrize("name", ["session-two-models.jsonl", "stream-two-models.jsonl"])
def test_searches_run_by_the_provider_are_counted(name):
    """``server_tool_use.web_search_requests``: searches Anthropic ran for the agent's WebSearch calls."""
    row = trajectory_usage(MODELS / name, system="s").iloc[0]
    assert row["provider_searches"] == 2 and row["searches"] == 1  # one WebSearch call, two searches run
    assert list(trajectory_usage(MODELS / name, system="s").columns)[-1] == "provider_searches"


def test_a_single_file_loads_directly_and_system_task_repeat_can_be_given(tmp_path):
    path = MODELS / "stream-two-models.jsonl"
    steps = load_trajectories(path, system="Claude Sonnet 4.5", task_id="census_004", repeat=2)
    assert set(zip(steps["system"], steps["task_id"], steps["repeat"])) == {("Claude Sonnet 4.5", "census_004", 2)}
    assert set(load_trajectories(path)["task_id"]) == {"stream-two-models"}
    # a file that names no model needs its system
    bare = write_lines(tmp_path / "t_001.jsonl", [{"role": "assistant", "content": "a|1"}])
    with pytest.raises(SgrKitError, match=r"t_001\.jsonl: the file names no model to take as its system; give"):
        load_trajectories(bare)
    assert load_trajectories(bare, system="s")[["system", "task_id", "kind"]].values.tolist() == [["s", "t_001",
                                                                                                   "answer"]]


def test_notes_are_said_once_per_kind_with_a_count_and_the_first_place(tmp_path):
    for i in range(3):
        source = (CLAUDE / "Claude Opus 4.7" / "arxiv_002.txt").read_text(encoding="utf-8")
        (tmp_path / "runs" / "s").mkdir(parents=True, exist_ok=True)
        (tmp_path / "runs" / "s" / f"t_{i}.txt").write_text(source, encoding="utf-8")
    said: list[str] = []
    assert len(list(iter_trajectories(tmp_path / "runs", notes=said.append))) == 3
    first = tmp_path / "runs" / "s" / "t_0.txt"
    assert said == [f"{tmp_path / 'runs'}: read 3 files as Claude Code stream-json",
                    f"3 files: lines that are not JSON skipped (an agent's output stream: a runner's log lines) "
                    f"(first: {first})"]  # fmt: skip


def test_quiet_on_the_command_line_prints_no_notes(tmp_path, monkeypatch, capsys):
    from sgr_kit import cli

    def effort(args):  # reads trajectories the way the command does: notes are TrajectoryNote warnings
        list(iter_trajectories(CLAUDE))
        return 0

    monkeypatch.setattr(cli, "_cmd_effort", effort)
    argv = ["effort", str(tmp_path / "scores.csv"), "--trajectories", str(CLAUDE)]
    assert cli.main(argv) == 0
    assert "read 3 files as Claude Code stream-json" in capsys.readouterr().err
    assert cli.main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
