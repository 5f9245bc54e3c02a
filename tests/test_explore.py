"""Tests of the explorer's logic without a browser (:mod:`sgr_kit.explore`).

Filter state -> selection, selection -> rendered HTML, escaping of hostile answer text,
the CSV export, the static view in the display bundle, and the explorer notebook executed
by papermill and exported by nbconvert. The browser test is ``test_explore_browser.py``.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import build_task

from sgr_kit.errors import SgrKitError
from sgr_kit.explore import CellIndex, FilterState, explore, filter_options, select, selection_csv, selection_means
from sgr_kit.explore.render import (
    TEXT_LIMIT,
    VERDICT_STYLE,
    answer_html,
    legend_html,
    selection_table_html,
    text_html,
    truncate,
)
from sgr_kit.schema import VERDICTS

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "07_explorer.ipynb"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
RLO = "\u202e"
LONG_PROSE = "lorem ipsum " * 9_000  # 108,000 characters


def _answers() -> list[tuple[str, str, str | None]]:
    return [
        ("A", "nvd_001", "cve|score\nC1|9.8\nC2|7.5\nC3|5.0"),
        ("A", "nvd_001-g", "cve|score\nC1|9.8\nC3|4.0"),
        ("A", "arx_001", "NONE"),
        ("A", "arx_001-g", f"id|cat\nP1|cs.LG\nP2|cs.CV\n\n{LONG_PROSE}"),
        ("B", "nvd_001", f"Here is the table {IMG}\n\ncve|score\nC1|{SCRIPT}\nC2|7.5{RLO}gnp.exe\nC9|1.0\n"),
        ("B", "nvd_001-g", "cve|score\nC1|9.8\nC1|9.8"),
        ("B", "arx_001", "id|cat"),
        ("B", "arx_001-g", None),  # no answer: missing
    ]


@pytest.fixture(scope="module")
def world():
    """Four tasks (two base problems, both variants) and two systems' answers, scored."""
    from sgr_kit.score import score_with_cells
    from sgr_kit.types import Answer

    nvd = [("C1", "9.8"), ("C2", "7.5"), ("C3", "5.0")]
    arx = [("P1", "cs.LG"), ("P2", "stat.ML")]
    meta = {"synthetic": True}
    tasks = [
        build_task(("cve", "score"), rows=nvd, task_id="nvd_001", domain="NVD", metadata=meta),
        build_task(("cve", "score"), rows=nvd, task_id="nvd_001-g", domain="NVD", metadata=meta),
        build_task(("id", "cat"), rows=arx, task_id="arx_001", domain="ARXIV", metadata=meta),
        build_task(("id", "cat"), rows=arx, task_id="arx_001-g", domain="ARXIV", metadata=meta),
    ]
    runs = [Answer(s, t, 0, text) for s, t, text in _answers() if text is not None]
    scores, cells = score_with_cells(tasks, runs, profile="paper")
    return {"tasks": tasks, "runs": runs, "scores": scores, "cells": cells}


@pytest.fixture
def app(world):
    return explore(world["scores"], world["cells"], tasks=world["tasks"], runs=world["runs"])


@pytest.fixture
def cells_only(world):
    return explore(world["scores"], world["cells"])


class _Tags(HTMLParser):
    """Every start tag and every attribute name of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)


def tags_of(markup: str) -> _Tags:
    parser = _Tags()
    parser.feed(markup)
    return parser


# ------------------------------------------------------------------ filter state -> selection


def test_filter_state_is_validated():
    with pytest.raises(SgrKitError, match="metric must be one of"):
        FilterState(metric="f1")
    with pytest.raises(SgrKitError, match=r"0 <= low <= high <= 1; found \(0.2, 1.5\)"):
        FilterState(score_range=(0.2, 1.5))
    with pytest.raises(SgrKitError, match="systems must be a tuple of str; found 'A'"):
        FilterState(systems="A")
    with pytest.raises(SgrKitError, match="no field"):
        FilterState().replace(system=("A",))


def test_filter_options_follow_the_papers_order(world):
    options = filter_options(world["scores"])
    assert options["systems"] == ("A", "B")
    assert options["variants"] == ("constraint", "goal")
    assert options["domains"] == ("ARXIV", "NVD")
    assert options["statuses"] == ("parsed", "empty", "parse_failure", "missing")


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, 8),
        ({"systems": ("B",)}, 4),
        ({"variants": ("goal",)}, 4),
        ({"domains": ("NVD",)}, 4),
        ({"families": ("vulnerability databases",)}, 4),
        ({"bins": ("1-2",)}, 4),
        ({"statuses": ("parse_failure", "missing")}, 2),
        ({"systems": ("A",), "variants": ("goal",), "domains": ("ARXIV",)}, 1),
    ],
)
def test_each_filter_restricts_its_column(world, changes, expected):
    scores = world["scores"]
    chosen = select(scores, FilterState(**changes))
    assert len(chosen) == expected
    for name, column in (("systems", "system"), ("variants", "variant"), ("domains", "domain"),
                         ("statuses", "status")):  # fmt: skip
        if name in changes:
            assert set(chosen[column]) <= set(changes[name])
    assert list(chosen.columns) == list(scores.columns)


def test_score_range_keeps_failed_answers_only_at_full_range(world):
    scores = world["scores"]
    full = select(scores, FilterState())
    assert full["item_f1"].isna().sum() == 2  # parse_failure and missing are kept
    narrowed = select(scores, FilterState(metric="item_f1", score_range=(0.0, 0.99)))
    assert narrowed["item_f1"].notna().all()
    assert narrowed["item_f1"].between(0.0, 0.99).all()
    expected = scores[scores["item_f1"].between(0.0, 0.99)]
    assert sorted(narrowed.index) == sorted(expected.index)


def test_sort_is_stable_with_missing_values_last(world):
    chosen = select(world["scores"], FilterState(sort_by="item_f1", ascending=False))
    values = chosen["item_f1"].to_numpy()
    finite = values[~np.isnan(values)]
    assert (np.diff(finite) <= 0).all()
    assert np.isnan(values[-2:]).all()
    with pytest.raises(SgrKitError, match="no column 'nope'"):
        select(world["scores"], FilterState(sort_by="nope"))


def test_text_search_ignores_case_and_needs_text(app, world):
    app.set_filters(text="c9")  # a cell of B's hostile answer; the runs' text is searched
    assert list(zip(app.selection["system"], app.selection["task_id"])) == [("B", "nvd_001")]
    app.set_filters(text="LOREM IPSUM")
    assert list(app.selection["task_id"]) == ["arx_001-g"]
    with pytest.raises(SgrKitError, match="text search: no answer text given"):
        select(world["scores"], FilterState(text="x"))


def test_text_search_without_runs_looks_in_the_cells(cells_only):
    cells_only.set_filters(text="gnp.exe")
    assert list(cells_only.selection["task_id"]) == ["nvd_001"]
    cells_only.set_filters(text="lorem")  # prose is not in any cell
    assert cells_only.selection.empty


def test_selection_means_by_failure_policy(world):
    scores = world["scores"]
    zero = selection_means(scores)
    exclude = selection_means(scores, failure_policy="exclude")
    failed = scores["status"].isin(["parse_failure", "missing"])
    assert zero["answers"] == 8 and zero["failed"] == int(failed.sum()) == 2
    assert zero["item_f1"] == pytest.approx(scores["item_f1"].fillna(0).mean())
    assert exclude["row_f1"] == pytest.approx(scores.loc[~failed, "row_f1"].mean())
    with pytest.raises(SgrKitError, match="failure_policy must be one of"):
        selection_means(scores, failure_policy="drop")


def test_answers_the_scorer_could_not_score_never_count_as_zero():
    table = pd.DataFrame({"status": ["parsed", "missing", "scorer_error"], "item_f1": [0.6, np.nan, np.nan],
                          "row_f1": [0.0, np.nan, np.nan], "poa": [1.0, np.nan, np.nan]})
    zero = selection_means(table)
    assert (zero["failed"], zero["unscored"]) == (2, 1)
    assert zero["item_f1"] == pytest.approx(0.3)  # (0.6 + 0) / 2: the scorer_error is left out
    assert selection_means(table, failure_policy="exclude")["item_f1"] == pytest.approx(0.6)


def test_selection_csv_round_trips(world):
    chosen = select(world["scores"], FilterState(systems=("A",), sort_by="row_f1"))
    back = pd.read_csv(pd.io.common.StringIO(selection_csv(chosen)), keep_default_na=False, na_values=[""])
    assert list(back.columns) == list(chosen.columns)
    assert back["task_id"].tolist() == chosen["task_id"].tolist()
    np.testing.assert_allclose(back["item_f1"].to_numpy(float), chosen["item_f1"].to_numpy(float))


def test_export_writes_the_selection_and_never_overwrites_unasked(app, tmp_path):
    app.set_filters(systems=("B",))
    target = tmp_path / "selection.csv"
    assert app.export_csv(target) == target
    assert pd.read_csv(target)["system"].eq("B").all() and len(pd.read_csv(target)) == 4
    with pytest.raises(SgrKitError, match="already exists"):
        app.export_csv(target)
    app.set_filters(systems=())
    app.export_csv(target, force=True)
    assert len(pd.read_csv(target)) == 8
    with pytest.raises(SgrKitError, match=r"expected a file name ending in \.csv"):
        app.export_csv(tmp_path / "selection.txt")


def test_widget_changes_drive_the_selection(app):
    app._filters["systems"].value = ("B",)
    assert set(app.selection["system"]) == {"B"}
    assert len(app._list.options) == 4
    assert "<b>4</b> of 8 answers selected" in app._summary.value
    app._filters["statuses"].value = ("parsed",)
    assert app.state == FilterState(systems=("B",), statuses=("parsed",))
    assert app.selected[0] == "B" and app.selected in {("B", "nvd_001", 0), ("B", "nvd_001-g", 0)}
    app._filters["statuses"].value = ("missing",)  # the shown answer leaves the selection
    assert app.selected == ("B", "arx_001-g", 0)
    app._filters["statuses"].value = ("empty",)  # nothing matches
    assert app.selected is None and "No answer matches" in app._answer.value


def test_list_keeps_the_shown_answer_when_it_stays_selected(app):
    app.select_answer("B", "nvd_001-g")
    app.set_filters(variants=("goal",), sort_by="item_f1", ascending=False)
    assert app.selected == ("B", "nvd_001-g", 0)
    with pytest.raises(SgrKitError, match="not in the current selection"):
        app.select_answer("A", "nvd_001")


# ------------------------------------------------------------------ cells index


def test_cell_index_gives_each_answers_records(world):
    cells = world["cells"]
    index = CellIndex(cells)
    for (system, task_id, repeat), group in cells.groupby(["system", "task_id", "repeat"], sort=False):
        records = index.records((system, task_id, repeat))
        assert [r[2] for r in records] == group["column"].tolist()
        assert [r[6] for r in records] == group["verdict"].tolist()
        assert [r[3] for r in records] == [None if pd.isna(v) else v for v in group["raw"]]
    assert index.records(("B", "arx_001-g", 0)) == []  # missing: no cells
    with pytest.raises(SgrKitError, match="missing column"):
        CellIndex(cells.drop(columns="verdict"))


# ------------------------------------------------------------------ selection -> rendered view

_CELL = re.compile(r'<td class="v v-(\w+)[^"]*"[^>]*><span class="sym"[^>]*>([^<]*)</span>')


def test_every_answer_cell_is_marked_by_colour_class_and_symbol(app, world):
    cells = world["cells"]
    for key in [("A", "nvd_001-g", 0), ("B", "nvd_001", 0), ("B", "nvd_001-g", 0), ("B", "arx_001", 0)]:
        detail = app.detail(key)
        page = answer_html(detail)
        marked = _CELL.findall(page)
        mine = cells[(cells["system"] == key[0]) & (cells["task_id"] == key[1])]
        # one marked answer cell per record (omitted rows: one per reference cell)
        assert len(marked) == len(mine)
        assert sorted(v for v, _ in marked) == sorted(mine["verdict"])
        assert all(symbol == VERDICT_STYLE[verdict][0] for verdict, symbol in marked)


def test_legend_names_every_verdict_in_words():
    legend = legend_html()
    assert set(VERDICT_STYLE) == set(VERDICTS)
    for symbol, label, _colour in VERDICT_STYLE.values():
        assert f"{symbol}</span>{html.escape(label)}" in legend


def test_aligned_rows_follow_the_reference_or_the_answer(app):
    detail = app.detail(("A", "nvd_001-g", 0))  # answer: C1 right, C3 wrong; C2 omitted
    by_reference = answer_html(detail, order="reference")
    by_answer = answer_html(detail, order="answer")
    rows = lambda page: re.findall(r"<tr><td class=\"idx\">(\d)</td>", page)  # noqa: E731
    assert rows(by_reference) == ["1", "2", "3"]
    assert rows(by_answer) == ["1", "3", "2"]  # omitted reference row 2 last
    assert "2·C_item / (N_gold + N_pred) = 2·3 / (6 + 4)" in by_reference


def test_canonical_forms_on_demand(app):
    detail = app.detail(("A", "nvd_001", 0))
    assert "→" not in answer_html(detail).split("Answer text")[0].replace("→ canonical", "")
    assert '<span class="canon">→' in answer_html(detail, canonical=True)


def test_status_reason_and_issues(app, cells_only):
    failure = app.detail(("B", "arx_001", 0))
    assert failure.score["status"] == "parse_failure"
    assert "no data row" in answer_html(failure)
    hostile = app.detail(("B", "nvd_001", 0))
    assert any("extra_row" in issue for issue in hostile.issues)
    assert hostile.reference_rows == (("C1", "9.8"), ("C2", "7.5"), ("C3", "5.0"))
    assert "Parse issues (" in answer_html(hostile)
    without_runs = cells_only.detail(("B", "nvd_001", 0))
    assert without_runs.issues is None and without_runs.text_source == "cells"
    page = answer_html(without_runs)
    assert "shown when the explorer is opened with tasks and runs" in page
    assert "Reference (canonical values)" in page


def test_answer_text_without_runs_is_reconstructed_and_labelled(cells_only):
    page = answer_html(cells_only.detail(("A", "nvd_001-g", 0)))
    assert "Answer reconstructed from its cell records" in page
    assert "C1 | 9.8\nC3 | 4.0" in page


def test_missing_answer_says_so(app):
    page = answer_html(app.detail(("B", "arx_001-g", 0)))
    assert "The system gave no answer to this task." in page


def test_a_rescore_that_disagrees_with_the_table_is_noted(world):
    scores = world["scores"].copy()
    row = (scores["system"] == "A") & (scores["task_id"] == "nvd_001")
    scores.loc[row, "correct_fields"] += 1
    app = explore(scores, world["cells"], tasks=world["tasks"], runs=world["runs"])
    detail = app.detail(("A", "nvd_001", 0))
    assert len(detail.notes) == 1 and "correct_fields 7 in the table, 6 re-scored" in detail.notes[0]
    assert "another profile or other rules" in answer_html(detail)


# ------------------------------------------------------------------ hostile text

_SAFE_TAGS = {"div", "span", "bdi", "table", "tr", "th", "td", "pre", "h3", "h4", "p", "ul", "li", "b", "style"}


def test_hostile_answer_text_is_shown_as_text(app):
    page = answer_html(app.detail(("B", "nvd_001", 0)))
    found = tags_of(page)
    assert found.tags <= _SAFE_TAGS, found.tags - _SAFE_TAGS
    assert not {a for a in found.attributes if a.startswith("on")}
    assert SCRIPT not in page and IMG not in page and "<img" not in page
    assert html.escape(SCRIPT) in page  # in the cell and in the answer text
    assert html.escape(IMG) in page  # in the prose of the answer text
    assert RLO not in page
    assert "⟨RLO⟩" in page and "<bdi>" in page


@pytest.mark.parametrize(
    "value",
    [SCRIPT, IMG, '"><svg onload=alert(1)>', "x' onmouseover='alert(1)", "</td></tr></table><script>x</script>",
     f"abc{RLO}def", "\u202bשלום\u202c", "a\u200fb\u2066c\u2069", "\x00\x1b[31m"],
)  # fmt: skip
def test_text_html_escapes_and_neutralises(value):
    out = text_html(value)
    found = tags_of(out)
    assert found.tags <= {"bdi", "span"}
    assert found.attributes <= {"class", "title"}
    assert not re.search("[\u202a-\u202e\u2066-\u2069\u200f\x00\x1b]", out)
    assert out.startswith("<bdi>")


def test_hostile_system_and_task_names_are_escaped(world):
    scores = world["scores"].copy()
    scores.loc[scores["system"] == "B", "system"] = SCRIPT
    app = explore(scores, None)
    bundle = app._repr_mimebundle_()
    assert SCRIPT not in bundle["text/html"] and html.escape(SCRIPT) in bundle["text/html"]
    assert SCRIPT not in app._list_head.value and SCRIPT not in app._summary.value
    assert SCRIPT not in selection_table_html(scores)


def test_long_answer_is_cut_with_a_visible_note(app):
    detail = app.detail(("A", "arx_001-g", 0))
    assert len(detail.text) > 100_000
    page = answer_html(detail)
    hidden = len(detail.text) - TEXT_LIMIT
    assert f"... ({hidden:,} more characters)" in page
    assert len(page) < TEXT_LIMIT + 20_000


def test_long_cell_is_cut_with_a_visible_note():
    assert truncate("abcdef", 2) == ("ab", 4)
    out = text_html("é" * 1_000, limit=200)
    assert out.endswith('<span class="sgr-more">... (800 more characters)</span>')
    assert out.count("é") == 200


# ------------------------------------------------------------------ pair and system views


def test_pair_view_sets_constraint_and_goal_side_by_side(app):
    app.select_answer("A", "nvd_001-g")
    app._tabs.selected_index = 1
    page = app._pair.value
    assert page.index("A</bdi> · <bdi>nvd_001</bdi>") < page.index("A</bdi> · <bdi>nvd_001-g</bdi>")
    assert 'class="sgr-pair"' in page and "Base problem nvd_001" in page


def test_compare_view_sets_two_systems_side_by_side(app):
    app.select_answer("A", "nvd_001")
    app._tabs.selected_index = 2
    assert app._other.value == "B"
    page = app._compare.value
    assert "<bdi>A</bdi> · <bdi>nvd_001</bdi>" in page and "<bdi>B</bdi> · <bdi>nvd_001</bdi>" in page
    assert html.escape(SCRIPT) in page and SCRIPT not in page


# ------------------------------------------------------------------ static view


def test_display_bundle_has_the_widget_and_a_static_table(app):
    app.set_filters(systems=("B",))
    bundle = app._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == app.widget.model_id
    page = bundle["text/html"]
    assert 'class="sgr-x sgr-static sgr-fallback"' in page
    assert "SYNTHETIC DATA" in page
    assert page.count('<tr><td><bdi>B</bdi></td>') == 4  # the selection, one row per answer
    assert "<bdi>A</bdi></td>" not in page.split("<h3>Selected answer</h3>")[0]
    assert "script" not in tags_of(page).tags
    assert bundle["text/plain"].startswith("SGR-Bench answer explorer: 4 of 8 answers selected")


def test_banner_follows_the_synthetic_flag(world):
    real = explore(world["scores"], world["cells"], synthetic=False)
    assert "SYNTHETIC" not in real.static_html() and "SYNTHETIC" not in real.widget.children[0].value
    demo = explore(world["scores"], world["cells"])  # the scores' own synthetic column
    assert "SYNTHETIC DATA" in demo.widget.children[0].value


def test_inputs_are_checked(world):
    with pytest.raises(SgrKitError, match="scores: missing column"):
        explore(world["scores"].drop(columns="status"))
    with pytest.raises(SgrKitError, match=r"must be unique; found \('A', 'nvd_001', 0\) twice"):
        explore(pd.concat([world["scores"], world["scores"].head(1)]))
    with pytest.raises(SgrKitError, match="profile must be one of"):
        explore(world["scores"], profile="lenient")


# ------------------------------------------------------------------ the notebook


def test_notebook_has_one_parameters_cell_and_no_outputs():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    tagged = [c for c in notebook["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1
    names = re.findall(r"^(\w+) = ", "".join(tagged[0]["source"]), flags=re.M)
    assert names == ["scores_path", "cells_path", "tasks_paths", "runs_path", "report_dir", "profile"]
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.mark.slow  # runs the exported notebook in a kernel
def test_exported_notebook_shows_a_plain_table_of_the_selection(world, tmp_path):
    """papermill runs the explorer notebook; nbconvert's HTML of it shows the selection as a table.

    A notebook executed by papermill keeps the widgets' state, so nbconvert shows the
    widget view there (which needs the widget renderer) and the snapshot cell gives the
    plain table. Without widget state (JupyterLab's default when saving), the explorer's
    own output falls back to its static view.
    """
    import nbformat
    import papermill
    from nbconvert import HTMLExporter

    scores_path, cells_path = tmp_path / "scores.csv", tmp_path / "cells.parquet"
    world["scores"].to_csv(scores_path, index=False)
    world["cells"].to_parquet(cells_path, index=False)
    executed = tmp_path / "explorer.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK), str(executed), parameters={"scores_path": str(scores_path), "cells_path": str(cells_path)},
        kernel_name="python3", cwd=str(NOTEBOOK.parent), progress_bar=False,
    )  # fmt: skip
    notebook = nbformat.read(executed, as_version=4)
    assert "widgets" in notebook.metadata  # papermill stored the widget state

    def export(nb) -> str:
        body, _ = HTMLExporter().from_notebook_node(nb)
        return body

    with_state = export(notebook)
    assert 'class="sgr-x sgr-static sgr-snapshot"' in with_state
    for system, task_id, _text in _answers():
        assert f"<td><bdi>{task_id}</bdi></td>" in with_state
    assert "SYNTHETIC DATA" in with_state
    assert SCRIPT not in with_state and "Loading widget" not in with_state

    notebook.metadata.pop("widgets")
    without_state = export(notebook)
    assert 'class="sgr-x sgr-static sgr-fallback"' in without_state
    assert 'type="application/vnd.jupyter.widget-view+json"' not in without_state
    assert SCRIPT not in without_state


# ------------------------------------------------------------------ entry points and export button


def test_export_button_writes_and_offers_a_download(app, tmp_path):
    app._export_path.value = str(tmp_path / "picked.csv")
    app._export.click()
    assert "wrote 8 answers" in app._export_note.value and 'download="picked.csv"' in app._export_note.value
    app._export.click()  # the file exists now: refused, in the widget
    assert "already exists" in app._export_note.value
    app._overwrite.value = True
    app._export.click()
    assert "wrote 8 answers" in app._export_note.value


def test_explore_runs_scores_first(world):
    from sgr_kit.explore import explore_runs

    app = explore_runs(world["tasks"], world["runs"])
    assert len(app.scores) == 8 and app.detail(("B", "nvd_001", 0)).text_source == "runs"


def test_explore_report_reads_a_report_folder(world, tmp_path):
    from sgr_kit.explore import explore_report, report_files

    with pytest.raises(SgrKitError, match="does not exist"):
        report_files(tmp_path / "nowhere")
    with pytest.raises(SgrKitError, match="no scores.csv"):
        report_files(tmp_path)
    world["scores"].to_csv(tmp_path / "scores.csv", index=False)
    assert report_files(tmp_path) == (tmp_path / "scores.csv", None)
    world["cells"].to_parquet(tmp_path / "cells.parquet", index=False)
    app = explore_report(tmp_path)
    assert len(app.scores) == 8 and app.synthetic
    assert app.detail(("A", "nvd_001-g", 0)).text_source == "cells"


def test_a_released_tasks_prose_is_shown_beside_the_answer(original_dir):
    from sgr_kit.explore.answers import gather_answer
    from sgr_kit.prepare import load_tasks

    task = load_tasks(original_dir)["waterquality_004"]
    key = ("S", task.task_id, 0)
    detail = gather_answer(key, {"status": "parsed"}, task=task, texts={key: task.reference})
    note = next(n for n in detail.notes if n.startswith("Task prose (never applied): "))
    assert "sorting_or_selection: upstream to downstream along the mainstem" in note
    assert "header_row: omit the header row; emit data rows only" in note
