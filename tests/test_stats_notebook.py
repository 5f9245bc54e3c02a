"""The constraint-versus-goal notebook: its parameters contract, and a run on a small scores table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sgr_kit.stats.simulate import SimulationDesign, simulate_scores

nbformat = pytest.importorskip("nbformat")

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "02_constraint_vs_goal.ipynb"
#: The inputs the notebook must take, with their defaults (``figure_format`` and any further
#: report options may be added by the report build; their defaults are its own).
PARAMETERS = {
    "scores_path": None, "tasks_paths": None, "runs_path": None, "profile": "paper",
    "metrics": ["item_f1", "row_f1", "poa"], "failure_policy": "zero", "alpha": 0.05, "n_boot": 10000,
    "n_perm": 10000, "seed": 0, "systems": None,
}  # fmt: skip


@pytest.fixture(scope="module")
def notebook():
    return nbformat.read(NOTEBOOK, as_version=4)


def test_one_parameters_cell_holds_every_input(notebook):
    tagged = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    tree = ast.parse(tagged[0].source)
    values = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body}
    assert {name: values.get(name, "absent") for name in PARAMETERS} == PARAMETERS
    assert "figure_format" in values


def test_committed_without_outputs_and_thin(notebook):
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    source = "\n".join(c.source for c in code)
    assert "def " not in source  # logic belongs in sgr_kit
    for call in ("paired_tests", "system_matrix", "repeat_stats", "power", "describe_paired"):
        assert f"stats.{call}(" in source
    text = " ".join(" ".join(c.source.split()) for c in notebook.cells if c.cell_type == "markdown")
    assert "zero differences dropped" in text and "continuity correction" in text


@pytest.mark.slow
def test_runs_on_a_small_scores_table(tmp_path):
    papermill = pytest.importorskip("papermill")
    pytest.importorskip("sgr_kit.pipeline")
    design = SimulationDesign(abilities=(0.5, -0.5, 0.0), shift=0.3, n_problems=12, n_repeats=2)
    path = tmp_path / "scores.csv"
    simulate_scores(design, seed=1).to_csv(path, index=False)
    out = tmp_path / "out.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK), str(out), cwd=str(tmp_path), progress_bar=False, kernel_name="python3",
        parameters={"scores_path": str(path), "n_boot": 200, "n_perm": 200, "metrics": ["item_f1", "poa"]},
    )  # fmt: skip
    executed = nbformat.read(out, as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    shown = "".join(str(o.get("data", {}).get("text/markdown", "")) for c in executed.cells
                    if c.cell_type == "code" for o in c.outputs)  # fmt: skip
    assert "SYNTHETIC" in shown
    assert "sys_01: constraint minus goal Item-F1 = " in printed and "[synthetic data]" in printed
    assert "All systems (per problem, the mean over systems): constraint minus goal P.O.A." in printed
    assert "system comparisons on Item-F1 (overall)" in printed
    assert "answered 2 times" in printed and "base problems for 80% power" in printed
