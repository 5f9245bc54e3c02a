"""Harbor trajectories (``sgr_kit.trajectories.harbor``): ATIF ``trajectory.json`` and terminus-2 episodes.

Fixtures: ``tests/fixtures/trajectories/harbor/job/`` (a Harbor job folder of three trials; where
each shape comes from and for which version: ``tests/fixtures/trajectories/README.md``, section
"Harbor"). Expected numbers are computed from the files' own ``final_metrics`` and steps.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.trajectories import is_trajectory_source, iter_trajectories, trajectory_usage
from sgr_kit.trajectories.harbor import HarborReader, continued, sniff

JOB = Path(__file__).resolve().parent / "fixtures" / "trajectories" / "harbor" / "job"
TRIAL = JOB / "census_004__Q7mX2aB"


def read(path: Path, **options):
    return list(iter_trajectories(path, notes=lambda _: None, **options))


def test_a_trajectory_json_becomes_steps_and_its_final_metrics_the_totals():
    [tr] = read(TRIAL / "agent" / "trajectory.json", task_id="census_004")
    doc = json.loads((TRIAL / "agent" / "trajectory.json").read_text(encoding="utf-8"))
    assert tr.format == "harbor" and (tr.system, tr.task_id) == ("gpt-5-mini", "census_004")
    assert [(s.kind, s.tool, s.host) for s in tr.steps] == [
        ("message", "", ""), ("tool", "bash_command", "api.census.gov"), ("message", "", ""),
        ("tool", "bash_command", ""), ("tool", "mark_task_complete", ""), ("message", "", ""),
        ("tool", "mark_task_complete", "")]  # fmt: skip
    assert "330758" in tr.steps[1].text  # the terminal's output for the step's keystrokes
    assert tr.answer is None  # a terminal agent answers in a file
    final = doc["final_metrics"]
    assert (tr.totals["input_tokens"], tr.totals["cached_input_tokens"], tr.totals["output_tokens"]) == (
        final["total_prompt_tokens"], final["total_cached_tokens"], final["total_completion_tokens"])
    assert tr.totals["cost_usd"] == pytest.approx(final["total_cost_usd"])
    metrics = [s["metrics"] for s in doc["steps"] if s["source"] == "agent"]
    assert [s.input_tokens for s in tr.steps if s.input_tokens is not None] == [m["prompt_tokens"] for m in metrics]
    assert tr.totals["seconds"] == pytest.approx(19.2) and tr.totals["seconds_source"] == "timestamps"


def test_a_harbor_job_folder_gives_each_trial_with_its_task_and_repeat():
    assert is_trajectory_source(JOB)
    found = {(t.system, t.task_id, t.repeat): t for t in read(JOB)}
    assert sorted(found) == [("gpt-5-mini", "arxiv_001", 0), ("gpt-5-mini", "census_004", 0),
                             ("gpt-5-mini", "census_004", 1)]  # fmt: skip
    # a trajectory continued after its context was summarised: the copied steps read once, the totals the last file's
    second = found[("gpt-5-mini", "census_004", 1)]
    assert [s.tool for s in second.steps if s.kind == "tool"] == ["bash_command", "bash_command", "mark_task_complete"]
    cont = json.loads((JOB / "census_004__W2nR8cF" / "agent" / "trajectory.cont-1.json").read_text(encoding="utf-8"))
    assert second.totals["input_tokens"] == cont["final_metrics"]["total_prompt_tokens"]


def test_an_agent_folder_without_trajectory_json_is_read_from_its_episodes():
    said: list[str] = []
    [tr] = iter_trajectories(JOB / "arxiv_001__Kd3pL9w", notes=said.append)
    assert (tr.system, tr.task_id) == ("gpt-5-mini", "arxiv_001")
    assert [(s.kind, s.tool, s.host) for s in tr.steps] == [
        ("message", "", ""), ("tool", "bash_command", "export.arxiv.org"), ("message", "", ""),
        ("tool", "bash_command", ""), ("tool", "mark_task_complete", "")]  # fmt: skip
    assert "2011.08019v1" in tr.steps[1].text  # the next episode's prompt shows the command's output
    assert any("without trajectory.json" in n for n in said) and any("Harbor terminus-2 episodes" in n for n in said)
    row = trajectory_usage(JOB / "arxiv_001__Kd3pL9w").iloc[0]
    assert row["input_tokens"] is pd_na() and row["steps"] == 5


def pd_na():
    import pandas as pd

    return pd.NA


def test_in_a_system_folder_an_agent_folder_stands_for_a_task(tmp_path):
    import shutil

    shutil.copytree(TRIAL / "agent", tmp_path / "runs" / "GPT-5 mini" / "census_004")
    [tr] = read(tmp_path / "runs")
    assert (tr.system, tr.task_id, tr.repeat, tr.format) == ("GPT-5 mini", "census_004", 0, "harbor")


def test_bad_trajectories_are_errors_naming_the_place(tmp_path):
    assert sniff({"schema_version": "ATIF-v1.4", "steps": []}) and not sniff({"schema_version": "1.4", "steps": []})
    reader = HarborReader()
    with pytest.raises(SgrKitError, match=r"t\.json: step 2: a tool call needs a function_name"):
        reader.line({"schema_version": "ATIF-v1.6", "agent": {}, "steps": [
            {"step_id": 1, "source": "user", "message": "x"},
            {"step_id": 2, "source": "agent", "message": "", "tool_calls": [{"arguments": {}}]}]}, loc="t.json")
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps({"schema_version": "ATIF-v1.6", "agent": {}, "steps": [],
                                "continued_trajectory_ref": "../elsewhere.json"}), encoding="utf-8")
    with pytest.raises(SgrKitError, match=r"continued_trajectory_ref must name another file of the same folder"):
        list(continued(path))
