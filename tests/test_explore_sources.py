"""Tests of where the explorer's and the annotator's answers come from (:mod:`sgr_kit.explore.sources`).

:class:`AnswerSource` holds a scores table with its cells, tasks and runs and gathers one
answer's details; the explorer (``test_explore.py``) and the annotator
(``test_annotate_widget.py``) show answers through it.
"""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import build_task

import sgr_kit.explore.render as render
from sgr_kit.errors import SgrKitError
from sgr_kit.explore.sources import AnswerSource, StaticView, as_task_map, as_texts, report_files


@pytest.fixture(scope="module")
def world():
    from sgr_kit.score import score_with_cells
    from sgr_kit.types import Answer

    tasks = [build_task(("id", "n"), rows=[("a", "1"), ("b", "2")], task_id=t) for t in ("x_001", "x_001-g")]
    runs = [Answer("S", "x_001", 0, "id|n\na|1\nb|3"), Answer("S", "x_001-g", 1, "NONE")]
    scores, cells = score_with_cells(tasks, runs)
    return {"tasks": tasks, "runs": runs, "scores": scores, "cells": cells}


def test_details_come_from_cells_and_a_rescore(world):
    source = AnswerSource(world["scores"], world["cells"], tasks=world["tasks"], runs=world["runs"])
    detail = source.detail(("S", "x_001", 0))
    assert detail.text == "id|n\na|1\nb|3" and detail.text_source == "runs"
    assert [r[6] for r in detail.records].count("wrong") == 1 and detail.reference_rows == (("a", "1"), ("b", "2"))
    assert source.position(("S", "x_001-g", "1")) == world["scores"].index[
        (world["scores"]["task_id"] == "x_001-g")].item()
    assert source.task("x_001") is world["tasks"][0] and source.task("nope") is None
    bare = AnswerSource(world["scores"])
    assert bare.detail(("S", "x_001", 0)).records is None and bare.task("x_001") is None
    with pytest.raises(SgrKitError, match=r"no answer \('S', 'x_002', 0\)"):
        source.detail(("S", "x_002", 0))


def test_inputs_are_checked(world, tmp_path):
    with pytest.raises(SgrKitError, match="expected Task objects"):
        as_task_map(["x_001"])
    with pytest.raises(SgrKitError, match="expected Answer objects"):
        as_texts([("S", "x_001", 0, "text")])
    assert as_task_map(None) is None and as_texts(None) is None
    assert set(as_task_map({t.task_id: t for t in world["tasks"]})) == {"x_001", "x_001-g"}
    with pytest.raises(SgrKitError, match="does not exist"):
        report_files(tmp_path / "missing")
    with pytest.raises(SgrKitError, match="no scores.csv"):
        report_files(tmp_path)
    world["scores"].to_csv(tmp_path / "scores.csv", index=False)
    assert report_files(tmp_path) == (tmp_path / "scores.csv", None)
    with pytest.raises(SgrKitError, match="missing column"):
        AnswerSource(pd.DataFrame({"system": ["S"]}))


def test_static_view_and_the_render_package_keep_the_explorers_names():
    assert StaticView("<p>x</p>")._repr_html_() == "<p>x</p>"
    # the names the explorer's render module exported before it became a package
    before = {"VERDICT_STYLE", "CSS", "WIDE", "CELL_LIMIT", "TEXT_LIMIT", "truncate", "text_html", "plain_label",
              "percent", "legend_html", "banner_html", "metrics_html", "metrics_line_html", "aligned_table_html",
              "answer_html", "side_by_side_html", "summary_html", "selection_table_html", "static_html"}
    assert before <= set(render.__all__) and all(callable(getattr(render, n)) or n.isupper() for n in before)
