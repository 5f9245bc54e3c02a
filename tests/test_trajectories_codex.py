"""Codex CLI readers (``sgr_kit.trajectories.codex``) on fixtures in the shapes of Codex's own source.

Fixtures: ``tests/fixtures/trajectories/codex/`` (where each shape comes from and for which
version: ``tests/fixtures/trajectories/README.md``, section "Codex CLI"). The files are read here
the way a line reader does it (one JSON object per line, non-JSON lines handed to
``reader.log_line`` when :func:`~sgr_kit.trajectories.codex.is_log_line` says so), and every
expected total is computed from the file's own lines, not copied.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories import codex
from sgr_kit.trajectories.steps import TOTAL_KEYS

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "trajectories" / "codex"
ANSWER = "arxiv_id|v1_date\n2011.08019|2020-11-16"


def read(path: Path, text: str | None = None):
    """(label, steps, reader) of one Codex file, read line by line."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    reader = label = None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        loc = f"{path}:{n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if reader is None or not codex.is_log_line(line):
                raise
            reader.log_line(line, loc=loc)
            continue
        if reader is None:
            label, _, cls = next(f for f in codex.FORMATS if f[1](obj))
            reader = cls()
        reader.line(obj, loc=loc)
    return label, reader.finish(), reader


def objects(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return out


def ours(usage: dict) -> dict:
    """Codex's usage keys as sgr-kit's (absent counts None)."""
    return {"input_tokens": usage.get("input_tokens"), "cached_input_tokens": usage.get("cached_input_tokens"),
            "output_tokens": usage.get("output_tokens"), "reasoning_tokens": usage.get("reasoning_output_tokens")}


# --- sniffing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,label", [("exec-2026.jsonl", codex.EXEC_LABEL), ("exec-2025-10.jsonl", codex.EXEC_LABEL),
                                        ("rollout-2026.jsonl", codex.ROLLOUT_LABEL),
                                        ("rollout-2025-10.jsonl", codex.ROLLOUT_LABEL)])
def test_each_file_is_recognised_by_its_own_format_only(name, label):
    first = objects(FIXTURES / name)[0]
    assert [f[0] for f in codex.FORMATS if f[1](first)] == [label]


@pytest.mark.parametrize("obj", [
    {"type": "system", "subtype": "init", "session_id": "s"},  # Claude Code stream-json
    {"type": "assistant", "message": {"content": []}},
    {"role": "assistant", "content": "x"},  # a chat message
    {"kind": "search", "query": "q"},  # a documented step
    {"type": "function_call", "name": "f", "arguments": "{}"},  # a Responses API item
    {"type": "message", "role": "assistant", "content": []},
    {"type": "error", "error": {"type": "overloaded_error"}},  # not Codex's bare error event
    {"type": "session_meta"},  # a rollout type without its payload
])
def test_sniffers_do_not_claim_other_formats(obj):
    assert not codex.sniff_exec(obj) and not codex.sniff_rollout(obj)


# --- codex exec --json ----------------------------------------------------------------------------


def test_exec_stream_steps_in_the_order_items_started():
    label, steps, reader = read(FIXTURES / "exec-2026.jsonl")
    assert label == codex.EXEC_LABEL
    assert [(s.kind, s.tool, s.host) for s in steps] == [
        ("tool", "todo_list", ""),  # started first, completed at the end of the turn: one step
        ("search", "web_search", ""),
        ("search", "mcp__serper__google_search", ""),
        ("pdf", "mcp__pdf__read_pdf", "arxiv.org"),
        ("tool", "shell", "export.arxiv.org"),  # the curl URL of the command is visible
        ("fetch", "web_search", "arxiv.org"),  # open_page
        ("fetch", "web_search", "arxiv.org"),  # find_in_page
        ("message", "", ""),
        ("answer", "", ""),
    ]
    # from item.completed, not the start; both queries of the action
    assert steps[1].query == "arXiv cs.CV November 2020 vision transformer | site:arxiv.org 2011 vision transformer"
    assert steps[2].query == "arxiv 2011.08019 transformer"
    assert steps[3].text.startswith("[error] tool call timed out")
    assert steps[4].text.startswith("<feed")
    assert steps[-1].text == ANSWER
    assert sum(s.text == ANSWER for s in steps) == 1  # the answer is not also a message
    assert all(math.isnan(s.t) and s.input_tokens is None for s in steps)  # the stream reports neither


def test_exec_web_search_items_with_a_repeated_id_are_one_step_each():
    path = FIXTURES / "exec-2026.jsonl"
    outer = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("{") and '"web_search"' in line:
            pairs = json.loads(line, object_pairs_hook=lambda p: p)
            item = dict(pairs)["item"]
            ids = [v for k, v in item if k == "id"]
            assert len(ids) == 2  # the shape Codex writes: the item's id and the search's own
            outer.add(ids[0])
    _, steps, _ = read(path)
    assert sum(s.tool == "web_search" for s in steps) == len(outer)


def test_exec_totals_are_the_last_running_total():
    for name in ("exec-2026.jsonl", "exec-2025-10.jsonl", "exec-resumed.jsonl"):
        path = FIXTURES / name
        reports = [o["usage"] for o in objects(path) if o.get("type") == "turn.completed"]
        _, _, reader = read(path)
        assert set(reader.totals) == set(TOTAL_KEYS)
        assert {k: reader.totals[k] for k in ours(reports[-1])} == ours(reports[-1])
        assert reader.totals["seconds"] is None and reader.totals["model"] is None and reader.totals["cost_usd"] is None
    # the resumed thread reported twice: summing would count the first turn twice
    _, _, reader = read(FIXTURES / "exec-resumed.jsonl")
    reports = [o["usage"] for o in objects(FIXTURES / "exec-resumed.jsonl") if o.get("type") == "turn.completed"]
    assert reader.totals["input_tokens"] < sum(r["input_tokens"] for r in reports)
    assert any("running total" in n for n in reader.notes)


def test_exec_older_usage_without_reasoning_leaves_it_unknown():
    _, _, reader = read(FIXTURES / "exec-2025-10.jsonl")
    assert reader.totals["reasoning_tokens"] is None  # not reported by that version: unknown, not 0
    assert reader.totals["output_tokens"] == 122


def test_exec_resumed_process_counts_its_items_again():
    _, steps, _ = read(FIXTURES / "exec-resumed.jsonl")
    assert [s.kind for s in steps] == ["message", "answer"]  # the second item_0 is a new item


def test_exec_a_count_that_restarts_is_added_with_a_note():
    first = {"input_tokens": 9000, "cached_input_tokens": 8000, "output_tokens": 300, "reasoning_output_tokens": 100}
    second = {"input_tokens": 5000, "cached_input_tokens": 4000, "output_tokens": 900, "reasoning_output_tokens": 400}
    text = "\n".join(json.dumps(o) for o in (
        {"type": "thread.started", "thread_id": "a"}, {"type": "turn.started"},
        {"type": "turn.completed", "usage": first},
        {"type": "thread.started", "thread_id": "b"}, {"type": "turn.started"},
        {"type": "turn.completed", "usage": second}))  # fmt: skip
    _, _, reader = read(Path("two.jsonl"), text)
    assert {k: reader.totals[k] for k in ours(first)} == {k: ours(first)[k] + ours(second)[k] for k in ours(first)}
    assert any("restarted" in n for n in reader.notes)


def test_exec_failed_turn_has_no_answer_and_no_totals_but_says_why():
    _, steps, reader = read(FIXTURES / "exec-failed.jsonl")
    assert [s.kind for s in steps] == ["message"]
    assert reader.totals is None
    assert any("the turn failed: exceeded retry limit" in n for n in reader.notes)
    assert any("Reconnecting" in n for n in reader.notes)


def test_exec_log_lines_are_skipped_with_a_note_and_errors_are_notes_not_steps():
    path = FIXTURES / "exec-2026.jsonl"
    _, steps, reader = read(path)
    log = [n for n in reader.notes if "not JSON" in n]
    assert len(log) == 1 and f"{path}:2" in log[0] and "codex_core::skills" in log[0]
    assert any("Deprecated config" in n for n in reader.notes)
    assert not any("Deprecated" in s.text for s in steps)


def test_is_log_line():
    assert codex.is_log_line("\x1b[2m2026-05-02T10:14:03.117Z\x1b[0m \x1b[31mERROR\x1b[0m codex_core::codex: x")
    assert codex.is_log_line("Reading prompt from stdin...")
    assert not codex.is_log_line('  {"type": "turn.completed", "usage": {"input_tok')


# --- session rollouts ------------------------------------------------------------------------------


def test_rollout_steps_tools_and_answer():
    label, steps, reader = read(FIXTURES / "rollout-2026.jsonl")
    assert label == codex.ROLLOUT_LABEL
    assert [(s.kind, s.tool, s.host) for s in steps] == [
        ("search", "web_search", ""),
        ("search", "mcp__serper__google_search", ""),
        ("tool", "exec_command", "export.arxiv.org"),
        ("fetch", "web_search", "arxiv.org"),
        ("pdf", "mcp__pdf__read_pdf", "arxiv.org"),
        ("answer", "", ""),
    ]
    assert steps[0].query == "arXiv cs.CV November 2020 vision transformer | site:arxiv.org 2011 vision transformer"
    assert steps[4].text.startswith("Published as a conference paper")  # output given as content items
    assert steps[-1].text == ANSWER and sum(s.text == ANSWER for s in steps) == 1
    assert reader.notes == []


def test_rollout_totals_are_the_last_cumulative_count_and_steps_carry_each_call():
    path = FIXTURES / "rollout-2026.jsonl"
    lines = objects(path)
    counts = [o["payload"]["info"] for o in lines
              if o["type"] == "event_msg" and o["payload"]["type"] == "token_count" and o["payload"]["info"]]
    _, steps, reader = read(path)
    assert {k: reader.totals[k] for k in ours(counts[-1]["total_token_usage"])} == ours(counts[-1]["total_token_usage"])
    stamps = [datetime.fromisoformat(o["timestamp"].replace("Z", "+00:00")) for o in lines]
    # no duration_ms in its task_complete: from session_meta's start (a little before its own line) to the last line
    start = datetime.fromisoformat(lines[0]["payload"]["timestamp"].replace("Z", "+00:00"))
    assert reader.totals["seconds"] == pytest.approx((stamps[-1] - start).total_seconds())
    assert reader.totals["seconds_source"] == "timestamps"
    models = [o["payload"]["model"] for o in lines if o["type"] == "turn_context"]
    assert reader.totals["model"] == models[-1]
    # each distinct call's last_token_usage sits on one step: together they make the total, once
    distinct = {json.dumps(c["total_token_usage"], sort_keys=True): c["last_token_usage"] for c in counts}
    for key in ("input_tokens", "cached_input_tokens", "output_tokens"):
        assert sum(s.__getattribute__(key) or 0 for s in steps) == sum(c[key] for c in distinct.values())
        assert sum(c[key] for c in distinct.values()) == reader.totals[key]
    assert sum(c["reasoning_output_tokens"] for c in distinct.values()) == sum(s.reasoning_tokens or 0 for s in steps)
    first = steps[0]
    assert first.tokens == first.input_tokens + first.output_tokens
    assert steps[1].input_tokens is None  # the same model call: counted once, on its first step
    assert steps[0].t == pytest.approx((stamps[8] - stamps[0]).total_seconds())


def test_rollout_of_an_older_version():
    path = FIXTURES / "rollout-2025-10.jsonl"
    _, steps, reader = read(path)
    assert [(s.kind, s.tool, s.host) for s in steps] == [
        ("search", "mcp__serper__google_search", ""),  # <server>__<tool> of versions before the mcp__ prefix
        ("tool", "shell", "api.census.gov"),  # the argv list's curl URL
        ("answer", "", ""),  # no task_complete: the last message
    ]
    counts = [o["payload"]["info"] for o in objects(path) if o["type"] == "event_msg"
              and o["payload"]["type"] == "token_count" and o["payload"]["info"]]  # fmt: skip
    assert {k: reader.totals[k] for k in ours(counts[-1]["total_token_usage"])} == ours(counts[-1]["total_token_usage"])
    assert reader.totals["model"] == "gpt-5"


def test_rollout_commentary_is_not_an_answer():
    text = "\n".join(json.dumps(o) for o in (
        {"timestamp": "2026-05-02T10:14:01.204Z", "type": "session_meta", "payload": {"id": "s"}},
        {"timestamp": "2026-05-02T10:14:02.204Z", "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "phase": "commentary",
            "content": [{"type": "output_text", "text": "Let me search first."}]}}))  # fmt: skip
    _, steps, reader = read(Path("r.jsonl"), text)
    assert [s.kind for s in steps] == ["message"]
    assert reader.totals["input_tokens"] is None and reader.totals["seconds"] == pytest.approx(1.0)


# --- hostile values: a clear error naming file, line, field and step --------------------------------


def _replace(name: str, n: int, old: str, new: str) -> tuple[Path, str]:
    path = FIXTURES / name
    lines = path.read_text(encoding="utf-8").splitlines()
    assert old in lines[n - 1], (name, n, old)
    lines[n - 1] = lines[n - 1].replace(old, new, 1)
    return path, "\n".join(lines)


EXEC_LAST = len((FIXTURES / "exec-2026.jsonl").read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("name,n,old,new,field", [
    ("exec-2026.jsonl", EXEC_LAST, '"input_tokens":48211', '"input_tokens":' + "9" * 400, "usage.input_tokens"),
    ("exec-2026.jsonl", EXEC_LAST, '"output_tokens":1893', '"output_tokens":1e400', "usage.output_tokens"),
    ("exec-2026.jsonl", EXEC_LAST, '"cached_input_tokens":40960', '"cached_input_tokens":-3', "cached_input_tokens"),
    ("exec-2026.jsonl", EXEC_LAST, '"usage":{', '"usage":[1],"u":{', "usage must be an object"),
    ("exec-2026.jsonl", 7, '"item":{', '"item":[1],"i":{', "item must be an object"),
    ("exec-2026.jsonl", 19, '"text":"The listing', '"text":["The listing"],"x":"', "agent_message text"),
    ("exec-2026.jsonl", 7, '"queries":["arXiv', '"queries":[7,"arXiv', "action.queries"),
    ("exec-2026.jsonl", 13, '"command":"/bin', '"command":{"argv":"/bin"},"y":"', "command_execution command"),
    ("rollout-2026.jsonl", 14, '"input_tokens":24318', '"input_tokens":' + "9" * 30, "total_token_usage.input_tokens"),
    ("rollout-2026.jsonl", 14, '"output_tokens":611', '"output_tokens":611.5', "total_token_usage.output_tokens"),
    ("rollout-2026.jsonl", 14, '"info":{', '"info":[1],"i":{', "token_count info"),
    ("rollout-2026.jsonl", 10, '"payload":{', '"payload":[1],"p":{', "payload"),
    ("rollout-2026.jsonl", 10, '"arguments":"{', '"arguments":"{{', "arguments of tool call"),
    ("rollout-2026.jsonl", 4, '"model":"gpt-5.5"', '"model":["gpt-5.5"]', "turn_context model"),
])  # fmt: skip
def test_hostile_values_name_file_line_field_and_step(name, n, old, new, field):
    path, text = _replace(name, n, old, new)
    try:
        json.loads(text.splitlines()[n - 1])
    except json.JSONDecodeError:  # pragma: no cover - every case above is valid JSON
        pytest.fail("the hostile line must stay valid JSON")
    with pytest.raises(SgrKitError) as info:
        read(path, text)
    message = str(info.value)
    assert f"{path}:{n}: step " in message and field in message, message


def test_surrogates_are_replaced_not_carried():
    path, text = _replace("exec-2026.jsonl", 21, '"text":"arxiv_id', '"text":"\\ud800arxiv_id')
    _, steps, _ = read(path, text)
    assert steps[-1].kind == "answer"
    steps[-1].text.encode("utf-8")  # writable: the lone surrogate was replaced
    path, text = _replace("rollout-2026.jsonl", 10, '"name":"mcp__serper', '"name":"mcp__\\udcffserper')
    _, steps, _ = read(path, text)
    steps[1].tool.encode("utf-8")


# --- a resumed session, and durations (issue 29.1, 29.6) ---------------------------------------------------


def test_rollout_a_count_that_goes_down_starts_a_segment_and_segments_are_added():
    """A resumed 0.40 session: the running total drops from 1,340,071 to 37,208 at line 12 (a new process)."""
    from sgr_kit.trajectories import iter_trajectories

    path = FIXTURES / "rollout-resumed-0.40.jsonl"
    lines = objects(path)
    totals = [o["payload"]["info"]["total_token_usage"] for o in lines
              if o["type"] == "event_msg" and o["payload"]["type"] == "token_count"]  # fmt: skip
    _, _, reader = read(path)
    # the last report of each segment (the one before the drop, and the last), added
    for key in ("input_tokens", "cached_input_tokens", "output_tokens"):
        assert reader.totals[key] == totals[1][key] + totals[2][key]
    assert reader.totals["input_tokens"] == 1_340_071 + 37_208
    [note] = [n for n in reader.notes if n.kind == codex.RESTARTED]
    assert note.place == f"{path}:12" and "1 time(s), first at" in note
    # said once for the file, naming the line, by a whole read too
    said: list[str] = []
    [tr] = iter_trajectories(path, notes=said.append)
    assert tr.totals["input_tokens"] == 1_377_279
    assert sum("totals restarted" in n for n in said) == 1 and any(f"{path}:12" in n for n in said)


def test_rollout_duration_from_task_complete_duration_ms_is_reported():
    """A 0.124 ``codex exec`` rollout: its task_complete says duration_ms 6,553; the lines span 5.6 s."""
    from sgr_kit.trajectories import trajectory_usage

    path = FIXTURES / "rollout-exec-0.124.jsonl"
    _, _, reader = read(path)
    assert reader.totals["seconds"] == pytest.approx(6.553) and "seconds_source" not in reader.totals
    row = trajectory_usage(path, system="GPT-5.5").iloc[0]
    assert row["seconds"] == pytest.approx(6.553) and row["seconds_source"] == "reported"
    assert (row["system"], row["task_id"], row["model"]) == ("GPT-5.5", "rollout-exec-0.124", "gpt-5.5")


def test_rollout_without_duration_counts_from_the_sessions_start_and_says_so():
    path = FIXTURES / "rollout-resumed-0.40.jsonl"
    lines = objects(path)
    _, _, reader = read(path)
    start = datetime.fromisoformat(lines[0]["payload"]["timestamp"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(lines[-1]["timestamp"].replace("Z", "+00:00"))
    assert reader.totals["seconds"] == pytest.approx((end - start).total_seconds())
    assert reader.totals["seconds_source"] == "timestamps"
