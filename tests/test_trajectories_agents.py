"""Readers of agents' own logs, on files written by hand to the documented shapes.

Claude Code ``--output-format stream-json --verbose``: one JSON object per line, ``type`` one of
``system`` (subtype ``init``), ``assistant`` (``message.content`` blocks ``text`` / ``tool_use`` with
``id``, ``name``, ``input``; ``message.usage`` with ``input_tokens``, ``output_tokens``), ``user``
(``tool_result`` blocks with ``tool_use_id``, ``content``, ``is_error``) and a final ``result``
(``result``, ``duration_ms``, ``num_turns``, ``usage``, ``total_cost_usd``). Claude Code writes one
``assistant`` line per content block, repeating the message id and usage.

OpenAI Chat Completions messages: ``{"role": "assistant", "content": null, "tool_calls": [{"id",
"type": "function", "function": {"name", "arguments": "<JSON text>"}}]}`` and ``{"role": "tool",
"tool_call_id", "content"}``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories import iter_trajectories, load_trajectories

ANSWER = "arxiv_id|v1_date\n2011.08019|2020-11-16"


def write_lines(path: Path, objects: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects), encoding="utf-8")
    return path


def claude_transcript(*, with_result: bool = True) -> list:
    lines = [
        {"type": "system", "subtype": "init", "cwd": "/home/user/project", "session_id": "sess-1",
         "tools": ["Bash", "WebFetch", "WebSearch", "mcp__papers__read_pdf"], "mcp_servers": [{"name": "papers",
         "status": "connected"}], "model": "claude-opus-4-7", "permissionMode": "bypassPermissions"},
        {"type": "user", "message": {"role": "user", "content": "Find the cs.CV papers ..."}, "session_id": "sess-1"},
        {"type": "assistant", "timestamp": "2026-05-01T10:00:00Z", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
            "content": [{"type": "thinking", "thinking": "plan"},
                        {"type": "text", "text": "I will search first."}],
            "usage": {"input_tokens": 100, "output_tokens": 20}}, "session_id": "sess-1"},
        # the same message continues on a second line (same id, same usage): counted once
        {"type": "assistant", "timestamp": "2026-05-01T10:00:01Z", "message": {
            "id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "WebSearch",
                         "input": {"query": "arXiv advanced search cs.CV 2020 Q4 vision transformer"}}],
            "usage": {"input_tokens": 100, "output_tokens": 20}}, "session_id": "sess-1"},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "1. arXiv advanced search ..."}]},
         "session_id": "sess-1"},
        {"type": "assistant", "timestamp": "2026-05-01T10:00:05Z", "message": {
            "id": "msg_2", "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_02", "name": "WebFetch",
                         "input": {"url": "https://WWW.arxiv.org/search/advanced?terms-0-term=transformer",
                                   "prompt": "list the results"}},
                        {"type": "tool_use", "id": "toolu_03", "name": "mcp__papers__read_pdf",
                         "input": {"url": "https://arxiv.org/pdf/2011.08019"}}],
            "usage": {"input_tokens": 300, "output_tokens": 40}}, "session_id": "sess-1"},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_02",
             "content": [{"type": "text", "text": "x" * 2000}]},
            {"type": "tool_result", "tool_use_id": "toolu_03", "content": "timeout", "is_error": True}]}},
        {"type": "assistant", "message": {
            "id": "msg_3", "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_04", "name": "Bash",
                         "input": {"command": "curl -s 'https://export.arxiv.org/api/query?id_list=2011.08019'",
                                   "description": "fetch metadata"}}],
            "usage": {"input_tokens": 400, "output_tokens": 10}}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_04", "content": "<feed>...</feed>"}]}},
        {"type": "assistant", "message": {"id": "msg_4", "role": "assistant",
                                          "content": [{"type": "text", "text": ANSWER}],
                                          "usage": {"input_tokens": 500, "output_tokens": 30}}},
    ]
    if with_result:
        lines.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 42500,
                      "duration_api_ms": 30000, "num_turns": 5, "result": ANSWER, "session_id": "sess-1",
                      "total_cost_usd": 0.12, "usage": {"input_tokens": 1300, "output_tokens": 100}})
    return lines


def test_claude_code_stream_json_becomes_steps(tmp_path):
    write_lines(tmp_path / "runs" / "Claude Opus 4.7" / "arxiv_001.jsonl", claude_transcript())
    steps = load_trajectories(tmp_path / "runs")
    # one answer: the result line's text is the last message's, which becomes the answer step
    assert steps["kind"].tolist() == ["message", "search", "fetch", "pdf", "tool", "answer"]
    assert steps["step"].tolist() == list(range(6))
    assert set(steps["system"]) == {"Claude Opus 4.7"} and set(steps["task_id"]) == {"arxiv_001"}
    assert steps["tool"].tolist()[1:5] == ["WebSearch", "WebFetch", "mcp__papers__read_pdf", "Bash"]
    assert steps.loc[1, "query"] == "arXiv advanced search cs.CV 2020 Q4 vision transformer"
    assert steps["host"].tolist()[2:5] == ["arxiv.org", "arxiv.org", "export.arxiv.org"]
    assert steps.loc[4, "url"] == "https://export.arxiv.org/api/query?id_list=2011.08019"
    # tool results fill the text of the call they answer; long ones are cut, errors marked
    assert steps.loc[1, "text"] == "1. arXiv advanced search ..."
    assert steps.loc[2, "text"].startswith("x" * 500) and "1500 more characters" in steps.loc[2, "text"]
    assert steps.loc[3, "text"] == "[error] timeout"
    # usage counted once per message id, on the message's first step
    assert steps["tokens"].fillna(-1).tolist() == [120, -1, 340, -1, 410, 530]
    # timestamps give seconds since the first one; the result line gives the answer's time
    assert steps["t"].tolist()[:3] == [0.0, 1.0, 5.0]
    assert math.isnan(steps.loc[4, "t"]) and steps.loc[5, "t"] == 42.5
    assert steps.loc[5, "text"] == ANSWER


def test_claude_code_transcript_without_result_has_no_answer(tmp_path):
    write_lines(tmp_path / "runs" / "s" / "arxiv_001.jsonl", claude_transcript(with_result=False))
    (trajectory,) = iter_trajectories(tmp_path / "runs")
    assert trajectory.answer is None and trajectory.steps[-1].kind == "message"


def test_claude_code_malformed_line_names_file_line_and_step(tmp_path):
    lines = claude_transcript()
    lines.insert(4, {"type": "assistant", "message": {"id": "m", "content": [{"type": "tool_use", "input": {}}]}})
    path = write_lines(tmp_path / "runs" / "s" / "arxiv_001.jsonl", lines)
    with pytest.raises(SgrKitError, match=rf"{path.name}:5: step 2: a tool_use block needs a name"):
        load_trajectories(tmp_path / "runs")


def test_claude_code_assistant_line_without_content_is_an_error(tmp_path):
    path = write_lines(tmp_path / "runs" / "s" / "t_001.jsonl", [{"type": "assistant", "message": "hello"}])
    with pytest.raises(SgrKitError, match=rf"{path.name}:1: step 0: an assistant line needs message.content"):
        load_trajectories(tmp_path / "runs")


def chat(final: str | None = ANSWER) -> list:
    messages = [
        {"role": "system", "content": "You are a web research agent."},
        {"role": "user", "content": "Find the cs.CV papers ..."},
        {"role": "assistant", "content": None, "usage": {"prompt_tokens": 50, "completion_tokens": 12},
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "search", "arguments": json.dumps({"query": "arxiv cs.CV 2020"})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "results: arxiv.org/search ..."},
        {"role": "assistant", "content": "Opening the advanced search.", "tool_calls": [
            {"id": "call_2", "type": "function",
             "function": {"name": "fetch", "arguments": json.dumps({"url": "https://arxiv.org/search/advanced"})}},
            {"id": "call_3", "type": "function",
             "function": {"name": "pdf", "arguments": json.dumps({"url": "https://arxiv.org/pdf/2011.08019v2"})}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "<html>advanced search</html>"},
        {"role": "tool", "tool_call_id": "call_3", "content": "%PDF text"},
    ]
    if final is not None:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": final}]})
    return messages


def test_openai_chat_messages_one_per_line(tmp_path):
    write_lines(tmp_path / "runs" / "GPT-5.5" / "arxiv_001" / "1.jsonl", chat())
    steps = load_trajectories(tmp_path / "runs")
    assert steps["repeat"].unique().tolist() == [1]
    assert steps["kind"].tolist() == ["search", "message", "fetch", "pdf", "answer"]
    assert steps["tool"].tolist() == ["search", "", "fetch", "pdf", ""]
    assert steps.loc[0, "query"] == "arxiv cs.CV 2020" and steps.loc[0, "text"].startswith("results:")
    assert steps.loc[2, "host"] == "arxiv.org" and steps.loc[3, "text"] == "%PDF text"
    assert int(steps.loc[0, "tokens"]) == 62
    assert steps.loc[4, "text"] == ANSWER


def test_openai_chat_record_in_a_jsonl_file_and_no_final_answer(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [
        {"system": "GPT-5.5", "task_id": "arxiv_001", "messages": chat()},
        {"system": "GPT-5.5", "task_id": "arxiv_002", "messages": chat(final=None)},
    ])
    first, second = iter_trajectories(path)
    assert first.answer == ANSWER and second.answer is None
    assert [s.kind for s in second.steps] == ["search", "message", "fetch", "pdf"]


def test_openai_tool_call_with_broken_arguments_names_file_line_and_step(tmp_path):
    messages = chat()
    messages[4]["tool_calls"][1]["function"]["arguments"] = '{"url": "https://arxiv.org/pdf/1'
    path = write_lines(tmp_path / "runs" / "s" / "arxiv_001.jsonl", messages)
    with pytest.raises(SgrKitError, match=rf"{path.name}:5: step 3: the arguments of tool call 'pdf' are not valid"):
        load_trajectories(tmp_path / "runs")


def test_openai_tool_call_without_a_name_is_an_error(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [{"system": "s", "task_id": "t", "messages": [
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"arguments": "{}"}}]}]}])
    with pytest.raises(SgrKitError, match=rf"{path.name}:1: message 0: step 0: a tool call needs function.name"):
        load_trajectories(path)
