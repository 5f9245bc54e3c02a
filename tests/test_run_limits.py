"""The protocol as limits: the budget as inspect_ai's time limit, the stall watchdog, both recorded and audited.

Each run is tiny (two samples, limits of a second or two); the web is the loopback server and
its ``/slow`` page, which answers only when the test ends (a tool call that hangs).
"""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("trafilatura")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log, transcript  # noqa: E402
from inspect_ai.solver import solver  # noqa: E402

from scripted import demo_task_file, scripted_model  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402
from sgr_kit.prepare import load_tasks  # noqa: E402
from sgr_kit.run import sgr_bench  # noqa: E402
from sgr_kit.run.limits import RunLimits, poll_seconds, run_limits, stall_message  # noqa: E402
from sgr_kit.trajectories import protocol_flags  # noqa: E402
from sgr_kit.trajectories.inspect_log import STALL_REASON  # noqa: E402
from webfixture import web_server  # noqa: E402,F401

IDS = ("arxiv_001", "arxiv_001-g")


@pytest.fixture
def tasks(tmp_path):
    return load_tasks(demo_task_file(tmp_path, IDS))


def test_the_limits_come_from_the_protocol_profile(tmp_path):
    assert run_limits() == RunLimits("paper", 6000, 3000.0, run_limits().source)  # the paper's Appendix C
    assert run_limits("none") == RunLimits("none", None, None, "no protocol")
    profile = tmp_path / "fast.yaml"
    profile.write_text("budget_seconds: 0.2\nstall_seconds: 30\n")
    assert (run_limits(profile).time_limit, run_limits(profile).stall_seconds) == (1, 30.0)  # whole seconds, >= 1
    with pytest.raises(SgrKitError, match="stall_seconds must be a number of seconds > 0 or null; found -1"):
        run_limits({"stall_seconds": -1})
    assert poll_seconds(3000) == 5.0 and poll_seconds(2) == pytest.approx(0.1)
    assert stall_message(12.4, 10).startswith(STALL_REASON)


def _flags(log_path, protocol) -> dict:
    table = protocol_flags(log_path, protocol=protocol)
    return {(row.task_id, row.flag): row.detail for row in table.itertuples()}


@pytest.mark.slow
def test_a_hung_tool_call_is_a_stall_that_ends_the_sample_and_is_recorded(tasks, web_server, tmp_path):
    protocol = {"budget_seconds": 120, "stall_seconds": 1}
    scripts = {t: [("fetch", {"url": web_server.url + "/slow"}), ("submit", {"answer": "never"})] for t in IDS}
    logs = inspect_eval(sgr_bench(tasks, search_url=web_server.search_url, protocol=protocol),
                        model=scripted_model(tasks, scripts), log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    log = read_eval_log(logs[0].location)
    assert log.status == "success"
    for sample in log.samples:
        assert sample.limit.type == "custom" and sample.limit.limit == 1
        assert sample.limit.reason.startswith(STALL_REASON)
        assert sample.total_time < 20  # the watchdog ended it, not the fetch's own 30 s timeout
        assert sample.scores["sgr_bench"].metadata["status"] == "missing"  # it never submitted
    flags = _flags(logs[0].location, protocol)
    assert {f for _, f in flags} == {"stalled"}
    assert {t for t, _ in flags} == set(IDS)
    assert any("ended by the runner's stall limit" in d for d in flags.values())


@pytest.mark.slow
def test_the_budget_is_the_time_limit_and_over_budget_is_recorded(tasks, web_server, tmp_path):
    protocol = {"budget_seconds": 1, "stall_seconds": None}
    scripts = {t: [("fetch", {"url": web_server.url + "/slow"})] for t in IDS}
    logs = inspect_eval(sgr_bench(tasks, search_url=web_server.search_url, protocol=protocol),
                        model=scripted_model(tasks, scripts), log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    log = read_eval_log(logs[0].location)
    for sample in log.samples:
        assert sample.limit.type == "time" and sample.limit.limit == 1
    flags = _flags(logs[0].location, protocol)
    assert {f for _, f in flags} == {"over_budget"}
    assert all("ended by the runner's time limit" in d for d in flags.values())
    # audited against the paper's profile (6,000 s), a 1 s limit is no sign of going over budget
    assert protocol_flags(logs[0].location, protocol="paper").empty


@solver
def _steady(seconds: float, every: float):
    async def solve(state, generate):
        waited = 0.0
        while waited < seconds:
            await anyio.sleep(every)
            waited += every
            transcript().info(f"still working after {waited:.1f} s")
        return state

    return solve


@solver
def _silent(seconds: float):
    async def solve(state, generate):
        await anyio.sleep(seconds)
        return state

    return solve


@pytest.mark.slow
def test_progress_in_the_trace_keeps_a_sample_alive_and_silence_ends_it(tasks, web_server, tmp_path):
    # progress every 0.1 s against a 2 s stall limit: twenty times the margin, so a loaded machine
    # that delays the event loop cannot make a steady sample look stalled
    protocol = {"budget_seconds": 60, "stall_seconds": 2}
    alive = inspect_eval(sgr_bench(tasks, search_url=web_server.search_url, protocol=protocol,
                                   solver=_steady(2.6, 0.1)),
                         model="mockllm/model", log_dir=str(tmp_path / "a"), display="none")  # fmt: skip
    assert all(s.limit is None for s in read_eval_log(alive[0].location).samples)
    silent = inspect_eval(sgr_bench(tasks, search_url=web_server.search_url, protocol=protocol,
                                    solver=_silent(30)),
                          model="mockllm/model", log_dir=str(tmp_path / "b"), display="none")  # fmt: skip
    for sample in read_eval_log(silent[0].location).samples:
        assert sample.limit.type == "custom" and sample.limit.reason.startswith(STALL_REASON)
        assert sample.total_time < 10
