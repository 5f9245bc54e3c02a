"""Scoring in batches and in worker processes (sgr_kit.score.parallel): the same tables as in one process."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.load import load_runs
from sgr_kit.prepare import load_tasks
from sgr_kit.score import score_with_cells
from sgr_kit.score.parallel import CELL_SCHEMA, default_workers, score_batches
from sgr_kit.score.runs import rows_frame
from sgr_kit.types import Answer

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


@pytest.fixture(scope="module")
def demo():
    tasks = load_tasks(DEMO / "constraint.jsonl", DEMO / "goal.jsonl")
    runs = load_runs(DEMO / "runs.jsonl", tasks=tasks)
    return tasks, runs, score_with_cells(tasks, runs)


def tables(batches):
    batches = list(batches)
    scores = rows_frame([row for b in batches for row in b.rows])
    cells = pa.Table.from_batches([b.cells for b in batches], schema=CELL_SCHEMA).to_pandas()
    return scores, cells, batches


@pytest.mark.parametrize("workers", [1, 2])
def test_batches_make_the_tables_of_score_with_cells(demo, workers):
    tasks, runs, expected = demo
    scores, cells, batches = tables(score_batches(tasks, runs, workers=workers, batch_answers=60))
    pd.testing.assert_frame_equal(scores, expected.scores)
    pd.testing.assert_frame_equal(cells, expected.cells)
    assert [len(b.rows) for b in batches[:-1]] == [60] * (len(batches) - 1)
    assert sum(b.answered for b in batches) == len(runs)


def test_without_cells_only_the_rows(demo):
    tasks, runs, expected = demo
    batches = list(score_batches(tasks, runs, with_cells=False))
    assert all(b.cells is None for b in batches)
    pd.testing.assert_frame_equal(rows_frame([r for b in batches for r in b.rows]), expected.scores)


def test_bad_arguments_and_inputs_fail_before_any_batch(demo):
    tasks, runs, _ = demo
    with pytest.raises(SgrKitError, match=r"workers must be an integer >= 1; found 0"):
        score_batches(tasks, runs, workers=0)
    with pytest.raises(SgrKitError, match=r"batch_answers must be an integer >= 1; found True"):
        score_batches(tasks, runs, batch_answers=True)
    with pytest.raises(SgrKitError, match=r"unknown task id 'nope'"):
        score_batches(tasks, [Answer("s", "nope", 0, "x", source="runs.jsonl:1")], workers=2)
    assert default_workers() >= 1
