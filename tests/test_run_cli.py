"""``sgr-kit run``: clear errors before any sample runs, resumption of an eval set, the report from its logs.

Also the configuration of the paper's CLI agents (inspect_swe): running them needs Docker and
their downloads, so only what they are given is checked here.
"""

from __future__ import annotations

import json
import socket
from collections import Counter

import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("trafilatura")

from inspect_ai.log import read_eval_log  # noqa: E402

from scripted import demo_task_file, scripted_model  # noqa: E402
from sgr_kit.cli import main  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402
from sgr_kit.prepare import load_tasks  # noqa: E402
from sgr_kit.run.cli import preflight, run_benchmark  # noqa: E402
from webfixture import web_server  # noqa: E402,F401

IDS = ("arxiv_001", "arxiv_001-g")


@pytest.fixture
def task_file(tmp_path):
    return demo_task_file(tmp_path, IDS)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("case, match", [
    ("model", r"model 'nosuch/model': Model API nosuch of model 'nosuch/model' not recognized"),
    ("name", r"model 'gpt4': Model name 'gpt4' should be in the format of <api_name>/<model_name>"),
    ("tasks", r"no such file"),
    ("key", r"needs an API key: set SERPER_API_KEY"),
    ("endpoint", r"the search endpoint http://127.0.0.1:\d+/search cannot be reached"),
    ("mcp", r"mcp .*\.mcp\.json: a server did not start or list its tools"),
    ("protocol", r"protocol: unknown key 'budget'"),
])  # fmt: skip
def test_what_a_run_needs_is_checked_before_any_sample_runs(case, match, task_file, web_server, tmp_path,
                                                            monkeypatch):  # fmt: skip
    models, tasks, options = ["mockllm/model"], [str(task_file)], {"search_url": web_server.search_url}
    if case == "model":
        models = ["nosuch/model"]
    elif case == "name":
        models = ["gpt4"]
    elif case == "tasks":
        tasks = [str(tmp_path / "missing.jsonl")]
    elif case == "key":
        monkeypatch.delenv("SERPER_API_KEY")
        options = {}
    elif case == "endpoint":
        options = {"search_url": f"http://127.0.0.1:{_closed_port()}"}
    elif case == "mcp":
        config = tmp_path / ".mcp.json"
        config.write_text(json.dumps({"mcpServers": {"gone": {"command": str(tmp_path / "no-such-server")}}}))
        options["mcp"] = config
    elif case == "protocol":
        options["protocol"] = {"budget": 1}
    logs = tmp_path / "logs"
    with pytest.raises(SgrKitError, match=match):
        run_benchmark(models, tasks, logs, display="none", **options)
    assert not logs.exists()  # nothing ran, nothing was written


def test_the_command_line_says_the_error_and_exits_2(task_file, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    monkeypatch.delenv("SGR_SEARCH_URL", raising=False)
    status = main(["run", "--model", "mockllm/model", "--tasks", str(task_file), "--log-dir", str(tmp_path / "l")])
    assert status == 2
    assert "sgr-kit: error: the search tool calls Serper" in capsys.readouterr().err


def test_a_second_run_finishes_only_what_is_missing(task_file, web_server, tmp_path):
    tasks = load_tasks(task_file)
    scripts = {t: [("search", {"query": t}), ("submit", {"answer": tasks[t].reference})] for t in IDS}
    logs = tmp_path / "logs"
    first_calls: Counter = Counter()
    model = scripted_model(tasks, scripts, calls=first_calls, fail=lambda t: t == "arxiv_001-g")
    ok, _ = run_benchmark([model], [str(task_file)], logs, search_url=web_server.search_url, retry_attempts=0,
                          max_samples=1, display="none")  # one at a time: the first finishes before the second fails
    assert not ok and first_calls["arxiv_001"] == 2
    again: Counter = Counter()
    ok, headers = run_benchmark([scripted_model(tasks, scripts, calls=again)], [str(task_file)], logs,
                                search_url=web_server.search_url, display="none")  # fmt: skip
    assert ok
    assert again == Counter({"arxiv_001-g": 2})  # the sample already done was kept, not run again
    (log,) = [read_eval_log(h.location) for h in headers]
    assert log.status == "success"
    assert {s.id: s.scores["sgr_bench"].value["item_f1"] for s in log.samples} == {"arxiv_001": 1.0,
                                                                                  "arxiv_001-g": 1.0}
    third: Counter = Counter()
    ok, _ = run_benchmark([scripted_model(tasks, scripts, calls=third)], [str(task_file)], logs,
                          search_url=web_server.search_url, display="none")  # fmt: skip
    assert ok and not third  # all done: nothing runs


@pytest.mark.slow
def test_the_report_builds_from_the_logs_of_two_models(task_file, web_server, tmp_path):
    from sgr_kit.report.build import build_report

    tasks = load_tasks(task_file)
    scripts = {t: [("search", {"query": t}), ("fetch", {"url": web_server.page("county-table")}),
                   ("submit", {"answer": tasks[t].reference})] for t in IDS}  # fmt: skip
    models = [scripted_model(tasks, scripts, name=f"mockllm/{n}") for n in ("alpha", "beta")]
    logs = tmp_path / "logs"
    ok, _ = run_benchmark(models, [str(task_file)], logs, search_url=web_server.search_url, epochs=2,
                          display="none")  # fmt: skip
    assert ok
    result = build_report([str(task_file)], [str(logs)], tmp_path / "report", trajectories=str(logs),
                          notebooks=["01", "10"], parameters={"n_boot": 100}, progress=False)  # fmt: skip
    assert result.ok, [r.error for r in result.failed]
    import pandas as pd

    scores = pd.read_csv(tmp_path / "report" / "scores.csv")
    assert len(scores) == 8 and set(scores["system"]) == {"mockllm/alpha", "mockllm/beta"}
    assert set(scores["repeat"]) == {0, 1} and (scores["item_f1"] == 1.0).all()
    usage = pd.read_csv(tmp_path / "report" / "usage.csv")
    assert (usage["searches"] == 1).all() and (usage["fetches"] == 1).all()


def test_preflight_returns_the_models_and_tasks(task_file, web_server):
    models, table = preflight(["mockllm/model"], [str(task_file)], search_url=web_server.search_url)
    assert [m.name for m in models] == ["model"] and list(table) == list(IDS)


def test_the_cli_agents_get_the_paper_tools_over_mcp_and_not_their_own_web_tools(web_server):
    pytest.importorskip("inspect_swe")
    from sgr_kit.run.agents import cli_agent, cli_agent_options
    from sgr_kit.run.tools import paper_tools

    claude = cli_agent_options("claude-code", tools=paper_tools(search_url=web_server.search_url))
    (spec,) = claude["bridged_tools"]
    assert spec.name == "sgr"
    assert sorted(t.__name__ if hasattr(t, "__name__") else str(t) for t in spec.tools)  # three tools
    from inspect_ai.tool import ToolDef

    assert [ToolDef(t).name for t in spec.tools] == ["search", "fetch", "read_pdf"]
    assert claude["disallowed_tools"] == ["WebSearch", "WebFetch"] and claude["effort"] == "medium"
    codex = cli_agent_options("codex-cli", tools=paper_tools())
    assert codex["web_search"] == "disabled" and codex["config_overrides"] == {"model_reasoning_effort": "medium"}
    assert [ToolDef(t).name for t in codex["bridged_tools"][0].tools] == ["search", "fetch", "read_pdf"]
    for name in ("claude-code", "codex-cli"):  # inspect_swe accepts the options (no sandbox is started)
        assert callable(cli_agent(name, search_url=web_server.search_url))
    with pytest.raises(SgrKitError, match="agent: expected one of claude-code, codex-cli; found 'gemini'"):
        cli_agent_options("gemini", tools=[])


def test_a_cli_agent_task_runs_in_a_docker_sandbox_with_the_protocol_limits(task_file, web_server):
    pytest.importorskip("inspect_swe")
    from sgr_kit.run import sgr_bench

    task = sgr_bench(str(task_file), agent="claude-code", search_url=web_server.search_url,
                     protocol={"budget_seconds": 600, "stall_seconds": 300})  # fmt: skip
    assert task.sandbox.type == "docker"
    assert task.time_limit == 600
    assert task.metadata["stall_seconds"] == 300.0
    k8s = sgr_bench(str(task_file), agent="codex-cli", search_url=web_server.search_url, sandbox="k8s")
    assert k8s.sandbox.type == "k8s"


def test_a_report_folder_a_user_has_is_refused_before_anything_runs(task_file, web_server, tmp_path, capsys):
    report = tmp_path / "report"
    report.mkdir()
    (report / "notes.txt").write_text("mine")
    status = main(["run", "--model", "mockllm/model", "--tasks", str(task_file), "--log-dir", str(tmp_path / "logs"),
                   "--search-url", web_server.search_url, "--report", str(report)])  # fmt: skip
    assert status == 2
    assert "exists and is not empty; give --force" in capsys.readouterr().err
    assert (report / "notes.txt").read_text() == "mine" and not (tmp_path / "logs").exists()
