"""The demo's SYNTHETIC trajectories: one per CLI answer, ending in the answer, consistent with its error."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from sgr_kit.demo.trajectories import RETRIEVAL_FAILURE_SEVERITY, demo_trajectories, site_url
from sgr_kit.prepare import load_tasks
from sgr_kit.reference import CLI_SYSTEMS
from sgr_kit.trajectories import iter_trajectories, load_trajectories, site_reach

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
KEY = ["system", "task_id", "repeat"]


def _jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (DEMO / name).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def steps():
    return load_trajectories(DEMO / "trajectories.jsonl")


@pytest.fixture(scope="module")
def answers(steps):
    tasks = load_tasks(DEMO / "constraint.jsonl", DEMO / "goal.jsonl")
    reach = site_reach(steps, tasks)
    truth = pd.read_csv(DEMO / "truth.csv")
    runs = pd.DataFrame(_jsonl("runs.jsonl"))
    table = reach.merge(truth, on=KEY, how="left", validate="one_to_one").merge(runs, on=KEY, how="left")
    urls = steps[steps["url"] != ""].groupby(KEY)["url"].agg(" ".join).rename("urls").reset_index()
    return table.merge(urls, on=KEY, how="left").fillna({"urls": ""})


def test_one_trajectory_per_cli_answer_ending_in_that_answer():
    runs = [r for r in _jsonl("runs.jsonl") if r["system"] in CLI_SYSTEMS]
    trajectories = list(iter_trajectories(DEMO / "trajectories.jsonl"))
    assert [(t.system, t.task_id, t.repeat) for t in trajectories] == [(r["system"], r["task_id"], r["repeat"])
                                                                      for r in runs]
    assert [t.answer for t in trajectories] == [r["answer"] for r in runs]
    assert {t.system for t in trajectories} == set(CLI_SYSTEMS)
    records = _jsonl("trajectories.jsonl")
    assert all(r["synthetic"] is True and r["note"].startswith("SYNTHETIC") for r in records)


def test_every_page_text_says_synthetic(steps):
    shown = steps[steps["kind"] != "answer"]
    assert shown["text"].str.startswith("SYNTHETIC").all()


def test_scope_drift_reaches_the_site_with_the_wrong_filters(answers):
    drift = answers[answers["injected"] == "scope_drift"]
    assert len(drift) > 50 and drift["reached_site"].all()
    assert drift["urls"].str.contains("scope=neighbouring").all()
    empty = drift["answer"].str.strip() == "NONE"  # the wrong slice listed nothing: no detail page opened
    assert empty.any() and (drift.loc[empty, "urls"].str.count("/record/") == 0).all()


def test_a_composition_error_has_a_correct_trajectory_and_a_wrong_table(answers, steps):
    final = answers[answers["injected"] == "final_answer"]
    correct = answers[answers["injected"] == "correct"]
    assert len(final) > 10 and final["reached_site"].all() and correct["reached_site"].all()
    for table in (final, correct):
        assert table["urls"].str.contains("scope=target&period=as_stated").all()
        assert not table["urls"].str.contains("neighbouring|measure=alternative|q=").any()
    # same retrieval as a correct run: every record's detail page (up to 8) was opened
    tasks = load_tasks(DEMO / "constraint.jsonl", DEMO / "goal.jsonl")
    opened = final["urls"].str.count("/record/")
    assert (opened == final["task_id"].map(lambda t: min(tasks[t].gold_rows, 8))).all()
    references = final["task_id"].map(lambda t: tasks[t].reference)
    assert (final["answer"] != references).all()


def test_retrieval_failures_never_reach_the_site(answers):
    failure = (answers["injected"] == "intent_rewriting") & (answers["severity"] >= RETRIEVAL_FAILURE_SEVERITY)
    assert failure.sum() > 20
    assert not answers.loc[failure, "reached_site"].any()
    assert answers.loc[~failure, "reached_site"].all()
    assert (answers.loc[failure, "urls"].str.split().map(lambda us: all(".example/" in u for u in us))).all()


def test_other_labels_leave_their_mark(answers):
    mismatch = answers[answers["injected"] == "criterion_mismatch"]
    assert mismatch["urls"].str.contains("measure=alternative").all()
    dependency = answers[answers["injected"] == "dependency_error"]
    assert (dependency["urls"].str.count("/record/") <= dependency["task_id"].map(lambda t: 8)).all()


def test_audited_slots_follow_their_audit_labels(answers):
    audit = pd.read_csv(DEMO / "audit.csv")
    audited = audit.merge(answers[answers["repeat"] == 0], on=["system", "task_id"], validate="one_to_one")
    assert len(audited) == len(audit) == 176
    assert (audited["label"] == audited["injected"]).all()
    assert audited.loc[audited["label"] == "scope_drift", "urls"].str.contains("scope=neighbouring").all()


def test_generation_is_deterministic_and_uses_the_seed():
    records = _jsonl("constraint.jsonl")[:3]
    runs = [{"system": "s", "task_id": r["task_id"], "repeat": 0, "answer": "x"} for r in records]
    truth = [{"system": "s", "task_id": r["task_id"], "repeat": 0, "injected": "correct", "severity": "0"}
             for r in records]
    first = demo_trajectories(records, runs, truth, systems=["s"], seed=1)
    assert first == demo_trajectories(records, runs, truth, systems=["s"], seed=1)
    assert first != demo_trajectories(records, runs, truth, systems=["s"], seed=2)
    assert demo_trajectories(records, runs, truth, systems=["other"], seed=1) == []


def test_site_url_falls_back_to_a_synthetic_host_per_domain():
    assert site_url({"domain": "NVD", "all_involved_urls": ["not a url", "https://nvd.nist.gov/x"]}) == \
        "https://nvd.nist.gov/x"
    assert site_url({"domain": "WATER_OFFICE", "start_url": ""}) == "https://water-office.example/"
