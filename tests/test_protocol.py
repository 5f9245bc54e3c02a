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
from sgr_kit.trajectories import load_trajectories, trajectory_usage
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
    # a fetch tool whose name does not say so reaches the web as a plain tool (outside the paper's kinds) until
    # tool_kinds says it is a fetch
    call = {"id": "c1", "type": "function", "function": {"name": "grab", "arguments": json.dumps(
        {"target": "https://census.gov/x"})}}
    record = {"system": "s", "task_id": "t_001", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "results"},
        {"role": "assistant", "content": "a|1"}]}  # fmt: skip
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert _flags(path) == ["tool_outside_protocol"]
    assert _flags(path, tool_kinds={"grab": "fetch"}) == []
    assert _flags(load_trajectories(path, tool_kinds={"grab": "fetch"})) == []
    with pytest.raises(SgrKitError, match=r"tool_kinds: a steps table's kinds were decided when it was read"):
        protocol_flags(load_trajectories(path), tool_kinds={"grab": "fetch"})


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
    assert out["detail"].iloc[1].startswith("1 call(s): step 0: Bash (tool) https://huggingface.co/")  # not `ls`
    pd.testing.assert_frame_equal(out, protocol_flags(load_trajectories(path), [_task()]))
    assert set(out["flag"]) <= set(FLAGS)


def test_the_demo_shows_every_flag_kind_and_durations_are_read_with_the_trajectories():
    paths = demo_paths()
    tasks = load_tasks(paths["constraint"], paths["goal"])
    flags = protocol_flags(paths["trajectories"], tasks)
    counts = flags["flag"].value_counts().to_dict()
    # the demo's hung runs (13 past the 6,000 s budget, 26 stalled after their last step), the WebFetch calls of
    # two runs and the one Bash curl of the benchmark's page (its python and sub-agent calls retrieve nothing)
    assert counts == {"stalled": 26, "over_budget": 13, "tool_outside_protocol": 3, "benchmark_visited": 1}
    outside = " ".join(flags.loc[flags["flag"] == "tool_outside_protocol", "detail"])
    assert "WebFetch (fetch, disabled)" in outside and "Bash (tool) https://huggingface.co/" in outside
    assert "python" not in outside and "Task" not in outside
    # the agents' reported durations are read with the trajectories: the same flags as with the usage table
    usage = trajectory_usage(paths["trajectories"])
    pd.testing.assert_frame_equal(flags, protocol_flags(paths["trajectories"], tasks, usage=usage))


def test_a_run_without_steps_is_checked_by_its_reported_duration():
    usage = pd.DataFrame({"system": ["s", "s"], "task_id": ["t_001", "t_002"], "repeat": [0, 0],
                          "seconds": [400.0, 6500.0]})
    out = protocol_flags(_steps(*_clean()), usage=usage)
    assert out[["task_id", "flag"]].values.tolist() == [["t_002", "over_budget"], ["t_002", "stalled"]]


# --- the tool rule reads like the paper's: retrieval tools are restricted, the agent's own bookkeeping is not ---

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "trajectories"


def _records(tmp_path: Path, *steps_lists: list[dict], totals: dict | None = None) -> Path:
    path = tmp_path / "runs.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for repeat, steps in enumerate(steps_lists):
            record = {"system": "s", "task_id": "t_001", "repeat": repeat, "steps": steps}
            if totals is not None:
                record["totals"] = totals
            handle.write(json.dumps(record) + "\n")
    return path


@pytest.mark.parametrize("call", [
    {"kind": "tool", "tool": "ToolSearch", "args": {"query": "select:mcp__serper__google_search"}},
    {"kind": "tool", "tool": "TodoWrite", "args": {"todos": [{"content": "open https://arxiv.org/list/cs.CV"}]}},
    {"kind": "tool", "tool": "Task", "args": {"prompt": "read https://census.gov/x and list the counties"}},
    {"kind": "tool", "tool": "Agent", "args": {"prompt": "search the archive"}},
    {"kind": "tool", "tool": "AskUserQuestion", "args": {"questions": [{"question": "Which year?"}]}},
    {"kind": "tool", "tool": "update_plan", "args": {"plan": [{"step": "fetch https://a.org", "status": "pending"}]}},
    {"kind": "tool", "tool": "todo_list", "text": "Find the papers"},
    {"kind": "tool", "tool": "collab_tool_call spawn_agent"},
    {"kind": "tool", "tool": "Bash", "args": {"command": "sort -u rows.txt | head"}},
    {"kind": "tool", "tool": "python", "args": {"code": "rows = sorted(set(rows))"}},
    {"kind": "tool", "tool": "mcp__fs__read_file", "args": {"path": "notes.md"}},
])  # fmt: skip
def test_tools_that_retrieve_nothing_from_outside_are_never_flagged(tmp_path, call):
    path = _records(tmp_path, [*_clean()[:2], {**call, "t": 300.0}, *_clean()[2:]])
    assert _flags(path) == []


@pytest.mark.parametrize(("call", "shown"), [
    ({"kind": "tool", "tool": "Bash", "args": {"command": "curl -sL https://api.census.gov/data/2020?get=NAME"}},
     "step 2: Bash (tool) https://api.census.gov/data/2020?get=NAME"),
    ({"kind": "tool", "tool": "Bash", "args": {"command": "cd /tmp && wget -q 'https://census.gov/a.csv'"}},
     "step 2: Bash (tool) https://census.gov/a.csv"),
    ({"kind": "tool", "tool": "python", "args": {"code": "requests.get('https://data.census.gov/x').text"}},
     "step 2: python (tool) https://data.census.gov/x"),
    ({"kind": "fetch", "tool": "WebFetch", "url": "https://census.gov/x"},
     "step 2: WebFetch (fetch, disabled) https://census.gov/x"),
    ({"kind": "search", "tool": "mcp__claude__WebSearch", "query": "county tables"},
     "step 2: mcp__claude__WebSearch (search, disabled) county tables"),
])  # fmt: skip
def test_a_shell_or_code_tool_reaching_the_web_and_a_disabled_tool_are_flagged(tmp_path, call, shown):
    path = _records(tmp_path, [*_clean()[:2], {**call, "t": 300.0}, *_clean()[2:]])
    out = protocol_flags(path)
    assert out["flag"].tolist() == ["tool_outside_protocol"]
    assert out["detail"].iloc[0] == f"1 call(s): {shown}"


def test_a_profile_allows_tools_by_name(tmp_path):
    curl = {"kind": "tool", "tool": "mcp__lab__Bash", "args": {"command": "curl https://api.census.gov/x"}, "t": 300.0}
    path = _records(tmp_path, [*_clean()[:2], curl, *_clean()[2:]])
    assert _flags(path) == ["tool_outside_protocol"]
    assert _flags(path, protocol={"allowed_tools": ["Bash"]}) == []  # the bare name of an MCP tool, any case
    assert _flags(path, protocol={"allowed_tools": ["mcp__lab__bash"]}) == []
    assert read_protocol({"allowed_tools": ["Bash"]}).allowed_kinds == PAPER_PROTOCOL.allowed_kinds
    profile = tmp_path / "lab.yaml"
    profile.write_text("allowed_tools: [Bash]\ndisabled_tools: [Bash]\n")  # disabled wins
    assert _flags(path, protocol=profile) == ["tool_outside_protocol"]
    assert PAPER_PROTOCOL.allowed_tools == () and read_protocol("paper").budget_seconds == 6000.0


def test_the_paper_profile_passes_the_papers_own_setup_in_claude_code():
    # Claude Code with the paper's MCP servers (Serper search, fetch): ToolSearch loads their definitions
    for folder in ("claude-code", "claude-session"):
        with pytest.warns(Warning):  # the notes on what the folder was read as
            flags = protocol_flags(FIXTURES / folder)
        assert flags.empty, flags.to_dict("records")


def _codex_folder(tmp_path: Path, name: str, keep=lambda obj: True) -> Path:
    folder = tmp_path / "GPT-5.5"
    folder.mkdir(parents=True, exist_ok=True)
    lines = (FIXTURES / "codex" / name).read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith("{") or keep(json.loads(line))]
    (folder / name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder.parent


def test_the_paper_profile_passes_the_papers_own_setup_in_codex(tmp_path):
    # codex exec --json of a search run: a to-do list, Codex's web search, the MCP search and PDF tools, and a
    # shell running curl: only the curl (an alternative retrieval path the paper's prompts prohibit) is flagged
    root = _codex_folder(tmp_path / "all", "exec-2026.jsonl")
    with pytest.warns(Warning):
        flags = protocol_flags(root)
    assert flags["flag"].tolist() == ["tool_outside_protocol"]
    assert re.fullmatch(r"1 call\(s\): step \d+: shell \(tool\) https://export\.arxiv\.org/api/query\?id_list=2011\.08019",
                        flags["detail"].iloc[0])
    # the same run without the shell command: the paper's setup, no flag
    no_shell = _codex_folder(tmp_path / "paper", "exec-2026.jsonl",
                             keep=lambda obj: (obj.get("item") or {}).get("type") != "command_execution")
    with pytest.warns(Warning):
        assert protocol_flags(no_shell).empty
    # a session rollout: its exec_command reaches the web with curl; its plan and MCP calls are not flagged
    with pytest.warns(Warning):
        flags = protocol_flags(_codex_folder(tmp_path / "rollout", "rollout-2026.jsonl"))
    assert flags["flag"].tolist() == ["tool_outside_protocol"] and "exec_command (tool)" in flags["detail"].iloc[0]


# --- the benchmark's URLs parsed and decoded as the host rule parses them (and URLs inside tool arguments) ---

@pytest.mark.parametrize("url", [
    "https://datasets-server.huggingface.co/rows?dataset=PKUAIWeb%2FSGR-BENCH&config=default&split=train",
    "https://huggingface.co/datasets/PKUAIWeb/%53GR-BENCH",
    "https://huggingface.co/datasets/%50KUAIWeb%2FSGR-BENCH/resolve/main/constraint.jsonl",
    "https://hf.co/datasets/PKUAIWeb/SGR-BENCH/resolve/main/goal.jsonl",
    "https://HF.CO/api/datasets/pkuaiweb/sgr-bench/parquet",
    "https://www.huggingface.co/datasets/PKUAIWeb//SGR-BENCH/",
    "https://huggingface.co\\datasets\\PKUAIWeb\\SGR-BENCH",
    "https://huggingface.co/api/datasets/PKUAIWeb/SGR-BENCH/croissant",
    "https://datasets-server.huggingface.co/search?dataset=pkuaiweb/sgr-bench&query=county",
])  # fmt: skip
def test_benchmark_urls_are_parsed_and_decoded(url):
    steps = _steps(*_clean()[:2], {"kind": "fetch", "tool": "fetch", "url": url, "t": 300.0}, *_clean()[2:])
    out = protocol_flags(steps)
    assert out["flag"].tolist() == ["benchmark_visited"], url
    assert out["detail"].iloc[0].startswith("step 2: URL ")


@pytest.mark.parametrize("url", [
    "https://huggingface.co/datasets/PKUAIWeb/SGR-BENCHMARKS-other",
    "https://huggingface.co/datasets/census/other?dataset=census%2Fother",
    "https://huggingface.co.evil.example/datasets/someone/else",
    "https://datasets-server.huggingface.co/rows?dataset=PKUAIWeb%2FSGR-BENCHX",
])  # fmt: skip
def test_near_miss_urls_are_not_the_benchmark(url):
    steps = _steps(*_clean()[:2], {"kind": "fetch", "tool": "fetch", "url": url, "t": 300.0}, *_clean()[2:])
    assert _flags(steps) == [], url


@pytest.mark.parametrize("command", [
    "curl -sL https://hf.co/datasets/PKUAIWeb/SGR-BENCH/resolve/main/constraint.jsonl -o c.jsonl",
    "curl -s https://census.gov/x > a && curl -s 'https://huggingface.co/datasets/PKUAIWeb/SGR-BENCH/raw/main/README.md'",
    "python - <<'END'\nimport requests\nrequests.get('https://datasets-server.huggingface.co/rows?dataset=PKUAIWeb%2FSGR-BENCH')\nEND",
])  # fmt: skip
def test_urls_inside_shell_arguments_are_audited(tmp_path, command):
    # a Bash step of the documented format without a url: the URLs in its command are where it reached
    bash = {"kind": "tool", "tool": "Bash", "args": {"command": command}, "t": 300.0}
    path = _records(tmp_path, [*_clean()[:2], bash, *_clean()[2:]])
    out = protocol_flags(path)
    assert out["flag"].tolist() == ["tool_outside_protocol", "benchmark_visited"]
    assert out["detail"].iloc[1].startswith("step 2: URL ")
    # allowed by name, the call still reaches the benchmark
    assert _flags(path, protocol={"allowed_tools": ["Bash"]}) == ["benchmark_visited"]


def test_urls_inside_an_agents_tool_call_are_audited(tmp_path):
    # a Claude Code-style tool_use of Bash through the OpenAI chat shape: the command's second URL is the benchmark
    command = "curl -s https://census.gov/a; curl -s https://hf.co/datasets/PKUAIWeb/SGR-BENCH/raw/main/goal.jsonl"
    call = {"id": "c1", "type": "function", "function": {"name": "Bash", "arguments": json.dumps({"command": command})}}
    record = {"system": "s", "task_id": "t_001", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "..."}, {"role": "assistant", "content": "a|1"}]}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert "benchmark_visited" in _flags(path)


# --- stalls only from what is known, durations read with the trajectories ---

def test_stalls_only_between_known_times_with_no_untimed_step_between():
    nan = float("nan")
    steps = [{"kind": "search", "query": "q", "t": nan}, {"kind": "fetch", "url": "https://a.org", "t": nan},
             {"kind": "fetch", "url": "https://a.org/b", "t": nan}, {"kind": "answer", "t": 4000.0}]
    usage = pd.DataFrame({"system": ["s"], "task_id": ["t_001"], "repeat": [0], "seconds": [4000.0]})
    assert _flags(_steps(*steps), usage=usage) == []  # steps 0-2 happened at unknown times: no stall claimed
    # an untimed step between two timed ones hides the gap; without it the gap is known
    middle = [{"kind": "search", "query": "q", "t": 10.0}, {"kind": "fetch", "url": "https://a.org", "t": nan},
              {"kind": "answer", "t": 3500.0}]
    assert _flags(_steps(*middle)) == []
    assert _flags(_steps(middle[0], middle[2])) == ["stalled"]
    # an untimed last step: the stretch to the reported end is unknown
    tail = [{"kind": "search", "query": "q", "t": 10.0}, {"kind": "answer", "t": nan}]
    assert _flags(_steps(*tail), usage=usage) == []
    assert _flags(_steps(tail[0]), usage=usage) == ["stalled"]


def test_protocol_flags_reads_the_agents_reported_duration_itself(tmp_path):
    path = _records(tmp_path, _clean(), totals={"seconds": 6100.0})
    out = protocol_flags(path)
    assert out["flag"].tolist() == ["over_budget", "stalled"]
    assert out["detail"].tolist() == ["ran 6,100 s (the agent's reported duration); budget 6,000 s",
                                      "no step for 5,650 s (from step 3 at 450 s to the end of the run); stall "
                                      "limit 3,000 s"]  # fmt: skip
    # a usage table, when given, is the duration's source
    usage = pd.DataFrame({"system": ["s"], "task_id": ["t_001"], "repeat": [0], "seconds": [500.0]})
    assert _flags(path, usage=usage) == []
