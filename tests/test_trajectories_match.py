"""Trajectories against answers: runs matching no answer (closest names), answers without a run, differing answers."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sgr_kit.cli import main
from sgr_kit.trajectories.match import MATCH_COLUMNS, closest_names, differing_answers, match_trajectories
from sgr_kit.trajectories.source import read_trajectories
from sgr_kit.types import Answer


def _keys(system: str, tasks: list[str], repeat: int = 0) -> pd.DataFrame:
    return pd.DataFrame({"system": system, "task_id": tasks, "repeat": repeat})


def test_match_trajectories_names_what_matches_nothing_with_the_closest_names():
    answers = pd.concat([_keys("codex-gpt55", ["arxiv_001", "arxiv_002"]), _keys("claude", ["arxiv_001", "arxiv_002"])])
    runs = pd.concat([_keys("Codex GPT-5.5", ["arxiv_001", "arxiv_002"]), _keys("claude", ["arxiv_01"]),
                      _keys("claude", ["arxiv_002"], repeat=3)])  # fmt: skip
    found = match_trajectories(answers, runs)
    assert list(found.columns) == list(MATCH_COLUMNS)
    assert found[["kind", "system", "n", "closest"]].values.tolist() == [
        ["unknown_system", "Codex GPT-5.5", 2, "codex-gpt55"], ["unknown_task", "claude", 1, "arxiv_001, arxiv_002"],
        ["unknown_repeat", "claude", 1, ""], ["no_trajectory", "codex-gpt55", 2, ""],
        ["no_trajectory", "claude", 2, ""]]  # fmt: skip
    assert match_trajectories(answers, answers).empty
    assert closest_names("CLAUDE", ["claude", "codex"]) == ["claude"]


def test_differing_answers_ignore_trailing_spaces_and_line_ends():
    from sgr_kit.trajectories.steps import Step, Trajectory

    runs = [Answer("s", "t", 0, "id|n\r\nA|1  \n", "r:1"), Answer("s", "u", 0, "x", "r:2"), Answer("s", "v", 0, "y", "r:3")]
    trs = [Trajectory("s", "t", 0, (Step("answer", text="id|n\nA|1"),), "t:1"),
           Trajectory("s", "u", 0, (Step("search", query="q"),), "t:2")]  # no final answer
    out = differing_answers(runs, trs)
    assert out["task_id"].tolist() == ["u"] and "('x' against none)" in out["message"].iloc[0]


def _write(tmp_path, name: str, records: list[dict]) -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_validate_runs_against_trajectories_lists_unknown_systems_and_differing_answers(tmp_path, capsys):
    tasks = [f"arxiv_{i:03d}" for i in range(1, 15)]
    trajectories = _write(tmp_path, "traj.jsonl", [
        {"system": system, "task_id": t, "steps": [{"kind": "search", "query": "q"}, {"kind": "answer", "text": "a|1"}]}
        for system in ("Codex GPT-5.5", "claude") for t in tasks])  # fmt: skip
    runs = _write(tmp_path, "runs.jsonl", [
        {"system": system, "task_id": t, "answer": "a|1" if i % 2 else "a|2"}
        for system in ("codex-gpt55", "claude") for i, t in enumerate(tasks)])  # fmt: skip
    assert main(["validate", "--runs", runs, "--trajectories", trajectories]) == 1
    out = capsys.readouterr().out
    assert ("[unknown_system] trajectories of system 'Codex GPT-5.5' (14 runs) match no system of the answers; "
            "closest: 'codex-gpt55'") in out
    assert out.count("[answer_differs]") == 7 and "result: FAILED (1 errors, 8 warnings)" in out
    assert "the answer at " in out and "differs from the trajectory's final answer at " in out
    # the same runs under the trajectories' own name: no error, the differing answers still listed
    runs = _write(tmp_path, "runs2.jsonl", [
        {"system": system, "task_id": t, "answer": "a|1" if i % 2 else "a|2"}
        for system in ("Codex GPT-5.5", "claude") for i, t in enumerate(tasks)])  # fmt: skip
    assert main(["validate", "--runs", runs, "--trajectories", trajectories]) == 0
    assert "result: OK (0 errors, 14 warnings)" in capsys.readouterr().out


def test_effort_warns_once_for_a_folder_named_otherwise_and_keeps_the_systems_scores(tmp_path, capsys):
    rows = []
    for p in range(6):
        for variant, suffix in (("constraint", ""), ("goal", "-g")):
            for system, f1 in (("codex-gpt55", 0.6), ("claude", 0.5)):
                rows.append({"system": system, "task_id": f"p{p}{suffix}", "base_id": f"p{p}", "variant": variant,
                             "repeat": 0, "status": "parsed", "item_f1": f1, "row_f1": f1, "poa": 1.0})  # fmt: skip
    scores = pd.DataFrame(rows)
    scores.to_csv(tmp_path / "scores.csv", index=False)
    for system, folder in (("codex-gpt55", "Codex GPT-5.5"), ("claude", "claude")):
        (tmp_path / "t" / folder).mkdir(parents=True)
        for task in scores.loc[scores["system"] == system, "task_id"]:
            (tmp_path / "t" / folder / f"{task}.jsonl").write_text(
                json.dumps({"kind": "search", "query": "q", "t": 1.0}) + "\n" + json.dumps(
                    {"kind": "answer", "text": "a|1", "t": 2.0}) + "\n")
    assert main(["effort", str(tmp_path / "scores.csv"), "--trajectories", str(tmp_path / "t"), "--n-boot", "200",
                 "--protocol", "none"]) == 0
    out, err = capsys.readouterr()
    assert err.count("match no system of the answers; closest: 'codex-gpt55'") == 1
    assert "system 'codex-gpt55': 12 of 12 answers have no trajectory" in err
    codex = next(line for line in out.splitlines() if line.strip().startswith("codex-gpt55"))
    assert "60.0" in codex and "n/a" in codex  # its scores kept, its effort unknown


def test_reading_once_gives_the_same_tables_as_reading_the_path(tmp_path):
    from sgr_kit.resources import demo_paths
    from sgr_kit.trajectories import trajectory_usage
    from sgr_kit.trajectories.protocol import protocol_flags

    path = demo_paths()["trajectories"]
    read = read_trajectories(path)
    pd.testing.assert_frame_equal(trajectory_usage(read), trajectory_usage(path))
    pd.testing.assert_frame_equal(protocol_flags(read), protocol_flags(path))
    with pytest.raises(Exception, match=r"tool_kinds apply as trajectories are read; these were read already"):
        trajectory_usage(read, tool_kinds={"x": "search"})
