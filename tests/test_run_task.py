"""The inspect_ai task sgr_bench: its samples, the paper's prompt, the tools offered, a run end to end offline.

The model is inspect_ai's ``mockllm`` playing a script (tests/scripted.py); the web is the
loopback server of tests/webfixture.py. Nothing reaches the internet.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("trafilatura")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from scripted import demo_task_file, scripted_model  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402
from sgr_kit.prepare import load_tasks  # noqa: E402
from sgr_kit.run import sgr_bench  # noqa: E402
from sgr_kit.run.task import PAPER_TOOLS, read_mcp_config, task_input, task_samples  # noqa: E402
from webfixture import web_server  # noqa: E402,F401

IDS = ("arxiv_001", "arxiv_001-g")


@pytest.fixture
def two_tasks(tmp_path) -> Path:
    """The demo's first task pair in a JSONL file of its own."""
    return demo_task_file(tmp_path, IDS)


def _model_events(sample):
    return [e for e in sample.events if e.event == "model"]


def test_one_sample_per_task_with_the_release_words_and_metadata(release_dir):
    tasks = load_tasks(release_dir / "constraint.jsonl", release_dir / "goal.jsonl")
    samples = task_samples(tasks)
    assert [s.id for s in samples] == list(tasks)
    for sample in samples:
        task = tasks[sample.id]
        assert sample.input == f"{task.instruction.strip()}\n\n{task.output_format.strip()}"
        assert task.start_url and task.start_url not in sample.input  # the paper: no start URL in the prompt
        assert sample.target == task.reference
        assert sample.metadata == {"base_id": task.base_id, "variant": task.variant, "domain": task.domain,
                                   "start_url": task.start_url, "cardinality": task.gold_rows, "bin": task.bin,
                                   "language": "en"}  # fmt: skip
    goal = task_samples(tasks, variant="goal")
    assert [s.id for s in goal] == [t for t in tasks if t.endswith("-g")]


def test_an_instruction_that_holds_its_output_format_is_not_repeated(two_tasks):
    task = load_tasks(two_tasks)["arxiv_001"]
    assert task.output_format.strip() in task.instruction
    assert task_input(task) == task.instruction.strip()


def test_bad_options_are_clear_errors(two_tasks, tmp_path):
    with pytest.raises(SgrKitError, match="variant: expected one of both, constraint, goal; found 'goals'"):
        task_samples(load_tasks(two_tasks), variant="goals")
    with pytest.raises(SgrKitError, match="agent: expected one of react, claude-code, codex-cli; found 'bash'"):
        sgr_bench(str(two_tasks), agent="bash")
    with pytest.raises(SgrKitError, match="no such file"):
        sgr_bench(str(tmp_path / "missing.jsonl"))
    with pytest.raises(SgrKitError, match="protocol: unknown key 'budget'"):
        sgr_bench(str(two_tasks), protocol={"budget": 5})


def test_the_search_endpoint_must_be_ready_before_any_sample(two_tasks, monkeypatch, tmp_path):
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    monkeypatch.delenv("SGR_SEARCH_URL", raising=False)
    with pytest.raises(SgrKitError, match="needs an API key: set SERPER_API_KEY"):
        sgr_bench(str(two_tasks))
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SgrKitError, match=rf"the search endpoint http://127.0.0.1:{port}/search cannot be reached"):
        sgr_bench(str(two_tasks), search_url=f"http://127.0.0.1:{port}")


def test_a_run_end_to_end_offers_only_the_paper_tools_and_scores_the_submissions(two_tasks, web_server, tmp_path):
    tasks = load_tasks(two_tasks)
    scripts = {
        "arxiv_001": [("search", {"query": "arxiv advanced search cs.CV"}),
                      ("fetch", {"url": web_server.page("county-table")}),
                      ("read_pdf", {"url": web_server.pdf_url}),
                      ("submit", {"answer": tasks["arxiv_001"].reference})],
        "arxiv_001-g": [("search", {"query": "arxiv records"}),
                        ("submit", {"answer": "arXiv ID|primary_category|latest version|term family|versions\n"
                                              "2104.08054|cs.CV|v5|state-space|8"})],
    }  # fmt: skip
    logs = inspect_eval(sgr_bench(tasks, search_url=web_server.search_url, date="2026-05-01"),
                        model=scripted_model(tasks, scripts), log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    log = read_eval_log(logs[0].location)
    assert log.status == "success"
    samples = {s.id: s for s in log.samples}
    assert set(samples) == set(IDS)
    for sample in samples.values():
        for event in _model_events(sample):  # exactly the paper's tools and submit, every call
            assert sorted(t.name for t in event.tools) == sorted([*PAPER_TOOLS, "submit"])
        prompt = next(m for m in sample.messages if m.role == "user").text
        assert prompt.startswith("Current date: 2026-05-01\n\n")
        assert task_input(tasks[sample.id]) in prompt
        assert "designated search, fetch and PDF tools only" in prompt
        assert tasks[sample.id].start_url not in prompt
        assert sample.limit is None
    replies = {m.function: m.text for m in samples["arxiv_001"].messages if m.role == "tool"}
    assert "Population by county" in replies["search"] and web_server.page("county-table") in replies["search"]
    assert "Alpha" in replies["fetch"] and "Appendix. Beta county population 6789" in replies["read_pdf"]
    queries = sorted(search["body"]["q"] for search in web_server.searches)  # the samples run concurrently
    assert queries == sorted(["arxiv advanced search cs.CV", "arxiv records"])
    assert {search["headers"]["x-api-key"] for search in web_server.searches} == {"test-key"}
    assert samples["arxiv_001"].scores["sgr_bench"].value == {"item_f1": 1.0, "row_f1": 1.0, "poa": 1.0}
    partial = samples["arxiv_001-g"].scores["sgr_bench"]
    assert partial.metadata["status"] == "parsed" and partial.metadata["lost"] == {"omitted_row": 10}
    assert partial.value["row_f1"] == pytest.approx(0.5)
    metrics = {s.name: {k.split("/")[-1]: m.value for k, m in s.metrics.items()} for s in log.results.scores}
    assert set(metrics) == {"item_f1", "row_f1", "poa"}
    assert metrics["row_f1"] == pytest.approx({"base_mean": 0.75, "variant_mean_constraint": 1.0,
                                               "variant_mean_goal": 0.5})  # fmt: skip


def test_a_tool_failure_is_an_error_the_model_sees_not_a_crash(two_tasks, web_server, tmp_path):
    tasks = load_tasks(two_tasks)
    answer = tasks["arxiv_001"].reference
    scripts = {t: [("fetch", {"url": "http://169.254.169.254/latest/meta-data/"}),
                   ("fetch", {"url": web_server.url + "/status/500"}), ("submit", {"answer": answer})]
               for t in IDS}  # fmt: skip
    logs = inspect_eval(sgr_bench(tasks, search_url=web_server.search_url), model=scripted_model(tasks, scripts),
                        log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    log = read_eval_log(logs[0].location)
    assert log.status == "success"
    for sample in log.samples:
        errors = [m.error for m in sample.messages if m.role == "tool" and m.function == "fetch"]
        assert len(errors) == 2 and all(e is not None for e in errors)
        assert sample.scores["sgr_bench"].metadata["status"] == "parsed"


MCP_SERVER = '''
try:  # the mcp SDK 2.x
    from mcp.server.mcpserver import MCPServer
except ImportError:  # 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer

server = MCPServer("mine")


@server.tool()
def search(query: str) -> str:
    """Search the web."""
    return "results for " + query


@server.tool()
def shell(command: str) -> str:
    """Run a shell command."""
    return "not allowed"


server.run()
'''


@pytest.mark.slow
def test_a_users_mcp_servers_offer_only_the_allowed_tools(two_tasks, tmp_path):
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(MCP_SERVER), encoding="utf-8")
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"mine": {"command": sys.executable, "args": [str(script)]}}}))
    tasks = load_tasks(two_tasks)
    answer = tasks["arxiv_001"].reference
    scripts = {t: [("search", {"query": "census"}), ("submit", {"answer": answer})] for t in IDS}
    logs = inspect_eval(sgr_bench(tasks, mcp=str(config), allowed_tools="search"),
                        model=scripted_model(tasks, scripts), log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    log = read_eval_log(logs[0].location)
    assert log.status == "success", log.error
    for sample in log.samples:
        assert {tuple(sorted(t.name for t in e.tools)) for e in _model_events(sample)} == {("search", "submit")}
        replies = [m.text for m in sample.messages if m.role == "tool" and m.function == "search"]
        assert replies == ["results for census"]


def test_a_bad_mcp_config_is_a_clear_error(tmp_path):
    config = tmp_path / ".mcp.json"
    config.write_text('{"mcpServers": {"x": {"args": []}}}')
    with pytest.raises(SgrKitError, match=r"mcpServers.x: expected a command \(stdio server\) or a url"):
        read_mcp_config(config)
    config.write_text('{"servers": {}}')
    with pytest.raises(SgrKitError, match="expected .*mcpServers"):
        read_mcp_config(config)


@pytest.mark.slow
def test_inspect_eval_finds_the_registered_task(two_tasks, web_server, tmp_path):
    """``inspect eval sgr_kit/sgr_bench`` (inspect_ai's own command, through the entry point), offline.

    mockllm's default output reports no usage (inspect_ai would download a tokenizer to count it),
    so a message limit of 1 ends each sample before its first model call: what is checked is
    that inspect_ai finds, builds, runs and scores the task, and records the limit.
    """
    env = {**os.environ, "SGR_SEARCH_URL": web_server.search_url, "SERPER_API_KEY": "test-key"}
    inspect = Path(sys.executable).with_name("inspect")
    done = subprocess.run([str(inspect), "eval", "sgr_kit/sgr_bench", "--model", "mockllm/model", "-T",
                           f"tasks={two_tasks}", "--message-limit", "1", "--display", "none", "--log-dir",
                           str(tmp_path / "logs")], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task == "sgr_kit/sgr_bench" and log.status == "success", log.error
    assert log.eval.task_args["tasks"] == str(two_tasks)
    assert {s.id for s in log.samples} == set(IDS)
    for sample in log.samples:
        assert sample.limit.type == "message"
        assert sample.scores["sgr_bench"].metadata["status"] == "missing"
    assert not re.search(r"Traceback", done.stderr)


def test_a_solver_is_named_or_given(two_tasks):
    task = sgr_bench(str(two_tasks), solver="generate")  # inspect_ai's own, by its registered name
    assert task.solver is not None
    with pytest.raises(SgrKitError, match="solver: no inspect_ai solver or agent is registered as 'nope'"):
        sgr_bench(str(two_tasks), solver="nope")
