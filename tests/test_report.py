"""The report build: notebooks executed by papermill on the demo, HTML that loads nothing external."""

from __future__ import annotations

import re

import nbformat
import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.report import NOTEBOOKS, build_report, notebook_parameters, run_notebook
from sgr_kit.resources import demo_dir, notebooks_dir

DEMO = demo_dir()
notebook_dir = notebooks_dir


def test_notebooks_are_committed_clean_with_one_parameters_cell():
    for path in sorted(notebook_dir().glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, path.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs"
    assert {p.stem for p in notebook_dir().glob("*.ipynb")} >= set(NOTEBOOKS)


def test_unknown_notebook_parameter_is_refused(tmp_path):
    nb = notebook_dir() / "01_main_table.ipynb"
    assert "failure_policy" in notebook_parameters(nb)
    with pytest.raises(SgrKitError, match="unknown parameter\\(s\\) failure_polcy; its parameters cell defines"):
        run_notebook(nb, tmp_path / "out.ipynb", parameters={"failure_polcy": "zero"})
    assert not (tmp_path / "out.ipynb").exists()


def test_report_on_the_demo(tmp_path):
    out = tmp_path / "report"
    paths = build_report([str(DEMO / "constraint.jsonl"), str(DEMO / "goal.jsonl")], [str(DEMO / "runs.jsonl")],
                         out, progress=False)
    names = {p.name for p in paths}
    assert names == {"scores.csv", "cells.parquet", "paper-audit.csv", "summary.txt",
                     "01_main_table.ipynb", "01_main_table.html"}
    html = (out / "01_main_table.html").read_text(encoding="utf-8")
    assert "SYNTHETIC DATA" in html  # the demo is labeled wherever it is shown
    assert not re.findall(r"<script[^>]+src=", html)  # opens offline: no external scripts
    assert "Kimi K2.5: Overall Item-F1" in html and "47.39" in html  # the audit's inconsistent claim is shown
    audit = pd.read_csv(out / "paper-audit.csv")
    assert (audit["verdict"] == "inconsistent").sum() >= 1
    assert (out / "summary.txt").read_text().startswith("SYNTHETIC DATA")
    with pytest.raises(SgrKitError, match="is not empty; pass --force"):
        build_report([str(DEMO / "constraint.jsonl")], [str(DEMO / "runs.jsonl")], out, progress=False)
