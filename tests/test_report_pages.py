"""Pages that read well: saved notebooks keep the report's inputs, every page builds under
``exclude`` with an audit, figures have margins and full names, each number once, small samples
say why they have no interval, ``--tasks`` takes several paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sgr_kit.breakdowns import (audit_scores, beside_paper, beside_paper_wide, most_wrong, paper_ranking,  # noqa: E402
                                unscored_note)
from sgr_kit.cli import build_parser  # noqa: E402
from sgr_kit.figures import figure_item_vs_row, figure_points_lost, figure_site_reach  # noqa: E402
from sgr_kit.reference import SYSTEMS  # noqa: E402
from sgr_kit.report import build_report  # noqa: E402
from sgr_kit.report.notebook import display_table, keep_parameters, with_intervals  # noqa: E402
from sgr_kit.report.summary import format_summary  # noqa: E402

from test_report import write_fixture  # noqa: E402


def _outputs(nb) -> str:
    text = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text.append(output.get("text", ""))
            for kind in ("text/plain", "text/markdown", "text/html"):
                value = output.get("data", {}).get(kind)
                if value:
                    text.append(value if isinstance(value, str) else "".join(value))
    return "\n".join(text)


# ------------------------------------------------------------------ 1. saved notebooks keep the report's inputs


def test_keep_parameters_writes_the_injected_values_into_the_parameters_cell(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('a = None  # first\nb = 1\nc = [\n  1,\n]', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell('# Parameters\na = "scores.csv"\nc = [2, 3]\nd = "x"\n',
                                  metadata={"tags": ["injected-parameters"]}),
        nbformat.v4.new_code_cell("print(a)", execution_count=3)])
    nb.cells[0].execution_count, nb.cells[1].execution_count = 1, 2
    path = tmp_path / "page.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    assert keep_parameters(path)
    cells = nbformat.read(path, as_version=4).cells
    assert len(cells) == 2 and not any("injected-parameters" in c.metadata.get("tags", []) for c in cells)
    namespace: dict = {}
    exec(cells[0].source, namespace)  # noqa: S102 - the test's own cell
    assert (namespace["a"], namespace["b"], namespace["c"], namespace["d"]) == ("scores.csv", 1, [2, 3], "x")
    assert "# first" in cells[0].source
    assert [c.execution_count for c in cells] == [1, 2]  # as a run of the saved notebook numbers them
    assert not keep_parameters(path)  # nothing injected any more: left as it is


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    fixture = write_fixture(tmp_path_factory.mktemp("pages-fixture"))
    out = tmp_path_factory.mktemp("pages") / "report"
    result = build_report(fixture["tasks"], fixture["runs"], out, audit_labels=fixture["audit"], notebooks=["03"],
                          parameters={"n_boot": 100}, progress=False)
    assert result.ok, [r.error for r in result.notebooks]
    return out


@pytest.mark.slow
def test_a_saved_page_rerun_with_one_parameter_keeps_the_reports_systems(small_report, tmp_path):
    saved = nbformat.read(small_report / "03_cardinality_bins.ipynb", as_version=4)
    tagged = [c.metadata.get("tags", []) for c in saved.cells]
    assert sum("parameters" in t for t in tagged) == 1 and not any("injected-parameters" in t for t in tagged)
    assert "over all 3 systems" in _outputs(saved)
    papermill = Path(sys.executable).with_name("papermill")
    done = subprocess.run([str(papermill), str(small_report / "03_cardinality_bins.ipynb"), str(tmp_path / "a.ipynb"),
                           "--cwd", str(small_report), "-p", "n_boot", "200"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    again = nbformat.read(tmp_path / "a.ipynb", as_version=4)
    shown = _outputs(again)
    assert "over all 3 systems" in shown and "11 systems" not in shown and "SYNTHETIC" not in shown
    assert "n_boot = 200" in "".join(c.source for c in again.cells if "injected-parameters" in c.metadata.get("tags", []))


# ------------------------------------------------------------------ 2. exclude with an audit


def _failed_fixture(folder: Path) -> dict:
    """The report fixture with one answer that is no table (a failed answer) whose label no other answer has."""
    files = write_fixture(folder)
    runs = [json.loads(line) for line in Path(files["runs"][0]).read_text().splitlines()]
    target = runs[0]
    target["answer"] = "I could not find an answer."
    Path(files["runs"][0]).write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    audit = pd.read_csv(files["audit"])
    audit.loc[(audit["system"] == target["system"]) & (audit["task_id"] == target["task_id"]), "label"] = "final_answer"
    audit.to_csv(files["audit"], index=False)
    return files


def test_a_label_whose_only_answer_has_no_scores_is_counted_and_said(tmp_path):
    from sgr_kit.pipeline import load_inputs

    files = _failed_fixture(tmp_path / "f")
    inputs = load_inputs(tasks=files["tasks"], runs=files["runs"], audit=files["audit"])
    labelled = audit_scores(inputs.audit, inputs.scores, failure_policy="exclude")
    note = unscored_note(labelled, failure_policy="exclude")
    assert note.startswith(f"1 of the {len(labelled)} audited answers has no scores") and "final_answer: 1 of 1" in note
    assert unscored_note(audit_scores(inputs.audit, inputs.scores, failure_policy="zero")) == ""
    from sgr_kit.figures import figure_error_type_scores

    fig = figure_error_type_scores(labelled)  # the label without scores is left out, not a ConversionError
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert not any(label.startswith("Final answer") for label in labels)
    plt.close(fig)


@pytest.mark.slow
def test_page_05_builds_under_exclude_with_an_audit(tmp_path):
    files = _failed_fixture(tmp_path / "f")
    result = build_report(files["tasks"], files["runs"], tmp_path / "r", audit_labels=files["audit"],
                          notebooks=["05"], failure_policy="exclude", parameters={"n_boot": 100}, progress=False)
    assert result.ok, [r.error for r in result.notebooks]
    page = (tmp_path / "r" / "05_error_profiles.html").read_text(encoding="utf-8")
    assert "has no scores (failed, and failed answers are excluded)" in page


# ------------------------------------------------------------------ 3. figures: margins, full names, one panel of answers


def test_a_perfect_system_is_drawn_inside_the_axes():
    t = pd.DataFrame({"system": ["Perfect", "Perfect"], "variant": "overall", "metric": ["item_f1", "row_f1"],
                      "value": [100.0, 100.0]})
    ax = figure_item_vs_row(t).axes[0]
    assert ax.get_xlim()[1] > 100 and ax.get_ylim()[1] > 100 and ax.get_xlim()[0] < 0
    lost = pd.DataFrame({"system": "A very long system name indeed", "variant": "overall", "cause": ["wrong"],
                         "points": [0.0], "item_f1": 100.0})
    fig = figure_points_lost(lost)
    assert fig.axes[0].get_xlim()[1] > 100
    assert "A very long system name indeed" in [t.get_text() for t in fig.axes[0].get_yticklabels()]
    plt.close("all")


def test_site_reach_draws_the_answers_panel_once_for_both_metrics():
    rows = []
    for metric in ("item_f1", "row_f1"):
        rows += [("DeepSeek V4 Pro", metric, "yes", 100.0), ("DeepSeek V4 Pro", metric, "no", 0.0)]
    rows += [("DeepSeek V4 Pro", "site_reached", "all", 100.0), ("DeepSeek V4 Pro", "failed_reached", "all", 0.0)]
    t = pd.DataFrame(rows, columns=["system", "quantity", "reached", "value"]).assign(ci_low=np.nan, ci_high=np.nan)
    fig = figure_site_reach(t, metric=["item_f1", "row_f1"])
    assert len(fig.axes) == 3
    assert [ax.get_xlabel() for ax in fig.axes].count("answers (percent)") == 1
    assert all(ax.get_xlim()[0] < 0 and ax.get_xlim()[1] > 100 for ax in fig.axes)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["DeepSeek V4 Pro"]  # not abbreviated
    plt.close(fig)


# ------------------------------------------------------------------ 4. one home per number


def _paper_scores(systems, tasks=4) -> pd.DataFrame:
    rows = []
    for k, system in enumerate(systems):
        for i in range(tasks):
            for variant, suffix in (("constraint", ""), ("goal", "-g")):
                rows.append({"system": system, "task_id": f"t_{i:03d}{suffix}", "base_id": f"t_{i:03d}",
                             "variant": variant, "status": "parsed", "item_f1": 0.9 - 0.07 * k - 0.01 * i,
                             "row_f1": 0.5, "poa": 1.0})
    return pd.DataFrame(rows)


def test_the_comparison_with_the_paper_has_each_number_once_and_no_constant_column():
    scores = _paper_scores(SYSTEMS[:3])
    long = beside_paper(scores).query("artefact in ('table2', 'table3')")
    wide = beside_paper_wide(long)
    assert len(wide) == 3 * 3 and not wide.duplicated(["system", "variant"]).any()
    for column in ("label", "n_systems", "synthetic", "artefact", "source"):
        assert column not in wide.columns
    # every (system, variant, metric) number of the long table appears once in the wide one
    keys = long.drop_duplicates(["system", "group", "quantity"])
    assert int(wide[[c for c in wide.columns if c in ("item_f1", "row_f1", "poa")]].notna().sum().sum()) == len(keys)


def test_each_computed_system_is_ranked_on_the_papers_scale():
    scores = _paper_scores(list(SYSTEMS) + ["Mine"])
    ranking = paper_ranking(scores)
    computed = ranking[ranking["source"] == "computed"]
    assert computed["rank"].max() <= len(SYSTEMS) + 1
    published = ranking[ranking["source"] == "paper"].set_index("system")["item_f1"]
    for row in computed.itertuples():
        others = published.drop(row.system, errors="ignore")
        assert row.rank == int((others > row.item_f1).sum()) + 1
        assert f"of {len(others) + 1} in the paper's ranking" in row.place


def test_page_06_shows_the_fifteen_columns_most_often_wrong():
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"task_id": [f"t{i // 5}" for i in range(100)], "column": [f"c{i % 5}" for i in range(100)],
                          "n_wrong": rng.integers(0, 4, 100), "rank": [i % 5 + 1 for i in range(100)]})
    table["percent_wrong"] = table["n_wrong"] * 10.0
    top = most_wrong(table, 15)
    assert len(top) == 15 and (top["n_wrong"] > 0).all()
    assert top["n_wrong"].is_monotonic_decreasing
    assert top["n_wrong"].min() >= table["n_wrong"].sort_values(ascending=False).iloc[14]


def test_headers_break_between_words_only():
    html = display_table(pd.DataFrame({"published": [1.0], "item_f1_ci_low": [2.0]})).to_html()
    assert ">published<" in html and "item_<wbr>f1_<wbr>ci_<wbr>low" in html
    css = (Path(__file__).resolve().parents[1] / "sgr_kit" / "report" / "templates" / "sgr_offline"
           / "index.html.j2").read_text()
    assert "overflow-wrap: anywhere" not in css


# ------------------------------------------------------------------ 5. small samples explain themselves


def test_summary_ci_says_why_an_interval_is_missing():
    scores = _paper_scores(["Mine"], tasks=3)
    text = format_summary(scores, ci=True, n_boot=100)
    assert "[n/a a]" in text and "[n/a]" not in text
    reason = [line for line in text.splitlines() if line.strip().startswith("a  ")]
    assert reason and "3 base problems; an interval needs 6" in reason[0] and "Mine overall Item-F1" in reason[0]
    assert "in parentheses" not in text  # no system here has a published value


def test_with_intervals_says_why_an_interval_is_missing():
    t = pd.DataFrame({"system": ["a"], "item_f1": [40.0], "item_f1_ci_low": [np.nan], "item_f1_ci_high": [np.nan],
                      "item_f1_note": ["5 base problem(s): no interval drawn (too few: 95% intervals from 6 problems on)"]})
    shown = with_intervals(t, ["item_f1"])
    assert shown["item_f1 [CI]"].item() == "40.00 [n/a: 5 base problems; an interval needs 6]"


# ------------------------------------------------------------------ 6. --tasks takes several paths


@pytest.mark.parametrize("command", ["score", "report", "validate"])
def test_tasks_takes_several_paths(command):
    parser = build_parser()
    extra = {"score": ["--runs", "r.jsonl", "--out", "s.csv"], "report": ["--runs", "r.jsonl", "--out", "rep"],
             "validate": []}[command]
    args = parser.parse_args([command, "--tasks", "t/a.json", "t/b.json", "--tasks", "c.json", *extra])
    assert args.tasks == ["t/a.json", "t/b.json", "c.json"]


# ------------------------------------------------------------------ 7. smaller things


def test_errors_say_what_was_given_instead():
    from sgr_kit import load_runs, load_tasks, score_runs
    from sgr_kit.errors import SgrKitError

    with pytest.raises(SgrKitError, match=r"found a record \(keys system, task_id, answer\) where a path was expected"):
        load_runs([{"system": "a", "task_id": "t", "answer": "x"}])
    with pytest.raises(SgrKitError, match="score_runs: runs must be what sgr_kit.load_runs"):
        score_runs({}, None)
    demo_runs = Path(__file__).resolve().parents[1] / "data" / "demo" / "runs.jsonl"
    with pytest.raises(SgrKitError) as info:
        load_tasks(demo_runs)
    message = str(info.value)
    assert len(message.splitlines()) == 1 and "is it a runs file?" in message


def test_validate_verbose_says_each_thing_once(original_dir, capsys):
    from sgr_kit.cli import main
    from sgr_kit.prepare.release import RENUMBERED_NOTE

    assert main(["validate", "--tasks", str(original_dir), "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "inclusion_conditions:" in out and "state_conditions:" not in out  # the release repeats them
    assert RENUMBERED_NOTE not in out


def test_help_of_the_package_opens_with_sgr_kit():
    import pydoc

    import sgr_kit

    text = pydoc.render_doc(sgr_kit, renderer=pydoc.plaintext)
    head = "\n".join(text.splitlines()[:60])
    assert "with_traceback" not in head and "add_note" not in head


def test_the_annotators_labels_stay_out_of_build_folders():
    root = Path(__file__).resolve().parents[1]
    notebook = nbformat.read(root / "notebooks" / "08_annotate.ipynb", as_version=4)
    cell = next(c for c in notebook.cells if "parameters" in c.metadata.get("tags", []))
    namespace: dict = {}
    exec(cell.source, namespace)  # noqa: S102 - the notebook's own parameters cell: plain assignments
    labels = Path(namespace["labels_path"])
    assert labels.parts[0] not in ("out", "build") and not labels.is_absolute()
    ignored = subprocess.run(["git", "check-ignore", "-q", str(Path("notebooks") / labels)], cwd=root)
    assert ignored.returncode == 1, f"{labels} is ignored by git: `git clean -X` would delete it"
    assert "Your labels are written to" in "".join(c.source for c in notebook.cells)


def test_the_demo_loads_without_notes(capsys):
    from sgr_kit.pipeline import load_inputs

    load_inputs()
    assert "note:" not in capsys.readouterr().err
