"""Tests of the annotation widget opened from files (:mod:`sgr_kit.annotate.inputs`) and notebook 08.

With no inputs the SYNTHETIC demo opens with its trajectories and an audit sample drawn
from it; with paths, the named files are read; notebook 08 runs top to bottom under
papermill and is committed clean with one parameters cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from sgr_kit.annotate import annotate_files
from sgr_kit.errors import SgrKitError
from sgr_kit.resources import demo_dir, demo_paths

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "08_annotate.ipynb"


def test_no_inputs_open_the_synthetic_demo_with_its_trajectories_and_a_sample(tmp_path):
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.stats.sample import audit_sample

    app = annotate_files(annotator="ana", labels_path=tmp_path / "ana.csv", slots=4, seed=5)
    sheet = audit_sample(load_inputs().scores, slots=4, seed=5)
    assert app.order == list(zip(sheet["system"], sheet["task_id"], sheet["repeat"].astype(int)))
    assert app.synthetic and "SYNTHETIC" in app.widget.children[0].value
    shown = []
    for position in range(len(app.order)):
        app.show(position)
        shown.append("first step on the task" in app._trajectory.value)
    assert any(shown)  # the demo's trajectories are read, and the site is marked


def test_named_files_are_read(tmp_path):
    demo = demo_paths()
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("system,task_id,repeat\nGPT-5.5,arxiv_001,0\nGPT-5.5,arxiv_001-g,0\n", encoding="utf-8")
    app = annotate_files(sheet, annotator="ana", labels_path=tmp_path / "ana.csv",
                         tasks_paths=[demo["constraint"], demo["goal"]], runs_path=demo["runs"],
                         trajectories_path=demo_dir() / "trajectories.jsonl", blind=True, seed=1)
    assert sorted(app.order) == [("GPT-5.5", "arxiv_001", 0), ("GPT-5.5", "arxiv_001-g", 0)]
    assert "GPT-5.5" not in app._title.value
    assert app._trajectory.value.count("<details") > 0
    missing = tmp_path / "nowhere.csv"
    with pytest.raises(SgrKitError, match="nowhere.csv"):
        annotate_files(missing, annotator="ana", labels_path=tmp_path / "ana.csv")


def test_notebook_has_one_parameters_cell_and_no_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for name in ("sheet_path", "annotator", "labels_path", "scores_path", "cells_path", "tasks_paths", "runs_path",
                 "trajectories_path", "blind"):
        assert f"\n{name} = " in "\n" + tagged[0].source, name
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code")
    assert "SYNTHETIC" in tagged[0].source


@pytest.mark.slow
def test_notebook_runs_on_the_demo_and_resumes(tmp_path):
    import papermill

    labels = tmp_path / "labels.csv"
    out = tmp_path / "run.ipynb"
    parameters = {"annotator": "nb", "labels_path": str(labels), "slots": 2}
    papermill.execute_notebook(str(NOTEBOOK), str(out), parameters=parameters, kernel_name="python3",
                               progress_bar=False, cwd=str(tmp_path))
    executed = nbformat.read(out, as_version=4)
    texts = [o.get("data", {}).get("text/plain", "") for c in executed.cells if c.cell_type == "code"
             for o in c.get("outputs", [])]
    systems = {json.loads(line)["system"] for line in demo_paths()["runs"].read_text(encoding="utf-8").splitlines()}
    expected = f"0 of {2 * len(systems)} answers labelled by nb"  # 2 slots, every system's answer to each
    assert any(expected in t for t in texts), texts
    assert labels.is_file()  # the label file exists from the start (header only)
