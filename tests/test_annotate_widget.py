"""Tests of the annotation widget driven from Python (:mod:`sgr_kit.annotate.widget`).

Labels are written at once to the annotator's file, reopening resumes at the first
unlabelled answer, blind mode hides system names and scores and shuffles reproducibly, the
keyboard messages reach the widget, and the trajectory marks the first step on the task's
site. The real browser is ``test_annotate_browser.py``.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import build_task

from sgr_kit.annotate import LABELS, Annotator, annotate
from sgr_kit.errors import SgrKitError
from sgr_kit.schema import LABEL_COLUMNS

SYSTEMS = ("Zephyrine", "Quillmark")
STATE = ["Advanced search with vendor = <b>Acme</b>", "Published between 2024-01-01 and 2024-03-31"]


@pytest.fixture(scope="module")
def world():
    """Two base problems in both variants, two systems' answers, scored; one trajectory."""
    from sgr_kit.score import score_with_cells
    from sgr_kit.types import Answer

    tasks = []
    for task_id in ("nvd_001", "nvd_001-g", "nvd_002", "nvd_002-g"):
        task = build_task(("cve", "score"), rows=[("C1", "9.8"), ("C2", "7.5")], task_id=task_id,
                          instruction=f"List the CVEs of {task_id}.", metadata={"State-Gated Retrieval": STATE})
        tasks.append(dataclasses.replace(task, start_url="https://nvd.nist.gov/vuln/search",
                                         rubric={"inclusion_conditions": ["CVSS >= 7"],
                                                 "exclusion_conditions": ["rejected CVEs"]}))
    runs = [Answer(s, t.task_id, 0, "cve|score\nC1|9.8\nC2|7.5" if s == SYSTEMS[0] else "cve|score\nC1|1.0", "test")
            for s in SYSTEMS for t in tasks]
    scores, cells = score_with_cells(tasks, runs)
    steps = pd.DataFrame([
        (SYSTEMS[1], "nvd_001", 0, 0, "search", "WebSearch", "", "", "acme cves 2024", "results ...", 1.0, 10),
        (SYSTEMS[1], "nvd_001", 0, 1, "fetch", "WebFetch", "https://blog.example.org/cves", "blog.example.org", "",
         "a blog", 2.0, 20),
        (SYSTEMS[1], "nvd_001", 0, 2, "fetch", "WebFetch", "https://nvd.nist.gov/vuln/detail/C1", "nvd.nist.gov", "",
         "<script>alert(1)</script>", 3.0, 30),
        (SYSTEMS[1], "nvd_001", 0, 3, "answer", "", "", "", "", "cve|score\nC1|1.0", 4.0, 5),
    ], columns=["system", "task_id", "repeat", "step", "kind", "tool", "url", "host", "query", "text", "t", "tokens"])
    sheet = scores[["system", "task_id", "repeat"]].copy()
    return {"tasks": tasks, "runs": runs, "scores": scores, "cells": cells, "steps": steps, "sheet": sheet}


def _open(world, path: Path, **options) -> Annotator:
    options.setdefault("annotator", "ana")
    return annotate(world["sheet"], world["scores"], world["cells"], labels_path=path, tasks=world["tasks"],
                    runs=world["runs"], trajectories=world["steps"], **options)


def _rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _screen(app: Annotator) -> str:
    return " ".join(w.value for w in (app._title, app._progress, app._task, app._answer, app._trajectory))


def test_a_label_is_written_at_once_with_the_annotators_name(world, tmp_path):
    path = tmp_path / "ana.csv"
    app = _open(world, path)
    first = app.current
    app.press("2")
    rows = _rows(path)
    assert list(rows[0]) == list(LABEL_COLUMNS)
    assert [(r["system"], r["task_id"], int(r["repeat"]), r["annotator"], r["label"]) for r in rows] == [
        (*first, "ana", LABELS[1])]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", rows[0]["labelled_at"])
    assert app.position == 1  # moved on to the next answer
    assert "1 of 8 labelled" in app._progress.value


def test_reopening_resumes_at_the_first_unlabelled_answer(world, tmp_path):
    path = tmp_path / "ana.csv"
    app = _open(world, path)
    for key in ("1", "4", "8"):
        app.press(key)
    labelled = app.order[:3]
    again = _open(world, path)
    assert again.position == 3 and again.current == world["sheet"].apply(tuple, axis=1).iloc[3]
    assert {k: v[0] for k, v in again.labels.items()} == dict(zip(labelled, (LABELS[0], LABELS[3], LABELS[7])))
    again.show(1)  # an earlier answer shows its label
    assert "this answer: <b>" in again._progress.value and again._buttons[LABELS[3]].button_style == "info"


def test_relabelling_replaces_and_a_full_sheet_opens_at_its_last_answer(world, tmp_path):
    path = tmp_path / "ana.csv"
    app = _open(world, path, advance=False)
    app.label("correct")
    app.label("scope_drift")
    assert [r["label"] for r in _rows(path)] == ["scope_drift"]
    for position in range(len(app.order)):
        app.show(position).label("final_answer")
    assert len(_rows(path)) == len(app.order)
    assert _open(world, path).position == len(app.order) - 1


def test_the_note_is_saved_with_the_label_and_when_edited_later(world, tmp_path):
    path = tmp_path / "ana.csv"
    app = _open(world, path)
    app._note.value = "wrong date filter"
    app.press("2")
    assert _rows(path)[0]["note"] == "wrong date filter"
    assert app._note.value == ""  # the next answer has no note yet
    app.previous()
    assert app._note.value == "wrong date filter"
    app._note.value = "wrong date filter; site reached"
    assert _rows(path)[0]["note"] == "wrong date filter; site reached"
    assert _rows(path)[0]["label"] == LABELS[1]


def test_blind_mode_hides_system_names_and_scores(world, tmp_path):
    seen = _open(world, tmp_path / "a.csv", advance=False)
    blind = _open(world, tmp_path / "b.csv", blind=True, advance=False)
    for position in range(len(blind.order)):
        seen.show(position)
        blind.show(position)
        shown, hidden = _screen(seen), _screen(blind)
        assert any(s in shown for s in SYSTEMS) and "Item-F1" in shown
        assert not any(s in hidden for s in SYSTEMS) and "Item-F1" not in hidden and "Row-F1" not in hidden
    assert "blind" in blind.widget.children[0].value
    blind.label("correct")
    assert _rows(tmp_path / "b.csv")[0]["system"] in SYSTEMS  # the file still says whose answer it was


def test_blind_order_is_a_reproducible_shuffle(world, tmp_path):
    sheet_order = [tuple(r) for r in world["sheet"].itertuples(index=False)]
    orders = {seed: _open(world, tmp_path / f"s{seed}.csv", blind=True, seed=seed).order for seed in range(4)}
    assert all(sorted(order) == sorted(sheet_order) for order in orders.values())
    assert _open(world, tmp_path / "again.csv", blind=True, seed=2).order == orders[2]
    assert any(order != sheet_order for order in orders.values())
    assert len({tuple(order) for order in orders.values()}) > 1
    app = _open(world, tmp_path / "resume.csv", blind=True, seed=3)
    app.press("1").press("1")
    again = _open(world, tmp_path / "resume.csv", blind=True, seed=3)
    assert again.position == 2 and set(again.labels) == set(orders[3][:2])


def test_keys_from_the_browser_drive_the_widget(world, tmp_path):
    path = tmp_path / "ana.csv"
    app = _open(world, path)
    send = app._keys._handle_custom_msg  # what a message from the front end calls
    send({"kind": "key", "key": "3"}, [])
    assert app.position == 1 and _rows(path)[0]["label"] == LABELS[2]
    send({"kind": "key", "key": "ArrowLeft"}, [])
    assert app.position == 0
    send({"kind": "key", "key": "u"}, [])  # the next unlabelled answer: the labelled one is skipped
    assert app.position == 1
    send({"kind": "key", "key": "ArrowRight"}, [])
    send({"kind": "key", "key": "x"}, [])  # no action
    send({"kind": "other", "key": "1"}, [])  # not a key message
    assert app.position == 2 and len(_rows(path)) == 1
    send({"kind": "key", "key": "p"}, [])
    assert app.position == 1


def test_a_failed_write_is_shown_and_the_answer_stays(world, tmp_path):
    path = tmp_path / "ana.csv"
    app = _open(world, path)
    path.unlink()
    path.mkdir()  # the label file became a folder: writing must fail
    app.press("2")
    assert app.position == 0 and app.current not in app.labels
    assert "sgr-error" in app._status.value


def test_task_conditions_answer_and_trajectory_are_shown(world, tmp_path):
    from sgr_kit.trajectories import site_reach

    app = _open(world, tmp_path / "ana.csv")
    key = (SYSTEMS[1], "nvd_001", 0)
    app.show(app.order.index(key))
    task = app._task.value
    assert "State-Gated Retrieval" in task and "Advanced search with vendor = &lt;b&gt;Acme&lt;/b&gt;" in task
    assert "CVSS &gt;= 7" in task and "rejected CVEs" in task and "List the CVEs of nvd_001." in task
    assert "td class=\"v v-wrong" in app._answer.value  # the aligned cells, marked
    trajectory = app._trajectory.value
    assert trajectory.count("<details") == 4 and "<script>" not in trajectory
    first = int(site_reach(world["steps"], world["tasks"]).set_index(["system", "task_id", "repeat"])
                .loc[key, "first_site_step"])
    marked = re.search(r'<details class="sgr-step sgr-first-site" open><summary>.*?#(\d+)', trajectory)
    assert marked and int(marked.group(1)) == first
    app.show(app.order.index((SYSTEMS[0], "nvd_001", 0)))
    assert "No trajectory for this answer" in app._trajectory.value


def test_inputs_are_checked(world, tmp_path):
    with pytest.raises(SgrKitError, match="missing column"):
        _open(dict(world, sheet=world["sheet"].drop(columns="repeat")), tmp_path / "a.csv")
    with pytest.raises(SgrKitError, match="listed twice"):
        _open(dict(world, sheet=pd.concat([world["sheet"], world["sheet"].head(1)])), tmp_path / "a.csv")
    extra = pd.DataFrame({"system": ["Nobody"], "task_id": ["nvd_001"], "repeat": [0]})
    with pytest.raises(SgrKitError, match=r"1 answer\(s\) are not in the scores table.*\n  row 9: answer \(system "
                                          r"'Nobody', task 'nvd_001', repeat 0\)"):
        _open(dict(world, sheet=pd.concat([world["sheet"], extra])), tmp_path / "a.csv")
    with pytest.raises(SgrKitError, match="no answers to label"):
        _open(dict(world, sheet=world["sheet"].head(0)), tmp_path / "a.csv")
    with pytest.raises(SgrKitError, match="annotator"):
        _open(world, tmp_path / "a.csv", annotator="  ")
    app = _open(world, tmp_path / "a.csv")
    with pytest.raises(SgrKitError, match="label 'typo'"):
        app.label("typo")
    app.press("1")
    with pytest.raises(SgrKitError, match="holds labels of 'ana'"):
        _open(world, tmp_path / "a.csv", annotator="bob")
    with pytest.raises(SgrKitError, match="ending in .csv"):
        _open(world, tmp_path / "a.txt")


def test_the_widget_displays_with_a_plain_text_fallback(world, tmp_path):
    app = _open(world, tmp_path / "ana.csv")
    bundle = app._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "0 of 8 answers labelled by ana" in bundle["text/plain"]
    assert app.last_draw_ms >= 0


def test_trajectories_of_answers_outside_the_sheet_are_left_aside(world, tmp_path):
    stray = world["steps"].head(1).assign(system="Nobody", task_id="zzz_001")  # a task the tasks do not know
    steps = pd.concat([world["steps"], stray], ignore_index=True)
    app = _open(dict(world, steps=steps), tmp_path / "ana.csv")
    assert app._reach_note == ""
    app.show(app.order.index((SYSTEMS[1], "nvd_001", 0)))
    assert "first step on the task" in app._trajectory.value


def test_the_widget_store_refuses_answers_outside_its_sheet(world, tmp_path):
    app = _open(dict(world, sheet=world["sheet"].head(2)), tmp_path / "ana.csv")
    system, task, _ = app.current
    with pytest.raises(SgrKitError, match=r"unknown system 'NoSuchBot'"):
        app._store.set("NoSuchBot", task, 0, "correct")
    with pytest.raises(SgrKitError, match=r"has no repeat 5 of task"):
        app._store.set(system, task, 5, "correct")
    app.label("correct")
    assert [r["system"] for r in _rows(tmp_path / "ana.csv")] == [system]


def test_two_tabs_of_one_annotator_keep_each_others_labels(world, tmp_path):
    path = tmp_path / "ana.csv"
    first, second = _open(world, path), _open(world, path)  # two JupyterLab tabs, one label file
    first.label("correct")            # answer 1
    second.show(1).label("scope_drift")  # answer 2, in the other tab
    first.show(2).label("final_answer")  # answer 3: the first tab now also knows answer 2's label
    assert len(_rows(path)) == 3 and first.order[1] in first.labels
    assert first.first_unlabelled() == 3
