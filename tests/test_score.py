"""score_answer, prepare_task, score_runs and cells_frame.

Known answers: the five 3x3 cases of the benchmark's deterministic scorer
(public repository Ninggggy/sgr-bench-extend, ten_task_phase/runtime/score.py;
restated in the project's reference-scorer notes, "Its own known-answer cases")
and the formulas of the paper's Appendix A.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import build_task, examples, table_text
from sgr_kit.errors import SgrKitError
from sgr_kit.rules import Rules, TaskRules
from sgr_kit.schema import CELL_COLUMNS, SCORE_COLUMNS, STATUSES, VERDICTS
from sgr_kit.score import (
    PreparedTask,
    ScoredRuns,
    cells_frame,
    prepare_task,
    score_all,
    score_answer,
    score_runs,
    score_with_cells,
)
from sgr_kit.types import Answer

PROFILES = ("strict", "paper")
REFERENCE_3X3 = "id|name|value\n1|alpha|10\n2|beta|20\n3|gamma|30"

# The reference scorer's own cases: (answer, Item-F1, Row-F1, P.O.A.)
KNOWN_ANSWERS = {
    "identical": (REFERENCE_3X3, 1.0, 1.0, 1.0),
    "reversed": ("id|name|value\n3|gamma|30\n2|beta|20\n1|alpha|10", 1.0, 1.0, 0.0),
    "one row missing": ("id|name|value\n1|alpha|10\n3|gamma|30", 0.8, 0.8, 1.0),
    "one non-key field wrong": ("id|name|value\n1|alpha|10\n2|beta|21\n3|gamma|30", 8 / 9, 2 / 3, 1.0),
    "NONE": ("NONE", 0.0, 0.0, 0.0),
}


@pytest.fixture
def task3(make_task):
    return make_task(("id", "name", "value"), REFERENCE_3X3)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("case", list(KNOWN_ANSWERS))
def test_reference_scorer_known_answers(task3, case, profile):
    answer, item, row, order = KNOWN_ANSWERS[case]
    result = score_answer(task3, answer, profile=profile)
    assert (result.item_f1, result.row_f1, result.poa) == pytest.approx((item, row, order))
    assert result.status == ("empty" if case == "NONE" else "parsed")


def test_known_answer_counts_follow_appendix_a(task3):
    result = score_answer(task3, KNOWN_ANSWERS["one non-key field wrong"][0], profile="strict")
    counts = (result.correct_fields, result.gold_fields, result.pred_fields, result.correct_rows,
              result.gold_rows, result.pred_rows, result.shared_keys, result.correct_pairs, result.pairs)  # fmt: skip
    assert counts == (8, 9, 9, 2, 3, 3, 3, 3, 3)


# statuses
@pytest.mark.parametrize("profile", PROFILES)
def test_header_only_answer_is_a_parse_failure_without_metrics(task3, profile):
    result = score_answer(task3, "id|name|value", profile=profile)
    assert result.status == "parse_failure"
    assert all(math.isnan(x) for x in (result.item_f1, result.row_f1, result.poa))
    assert result.reason
    assert (result.gold_rows, result.pred_rows, result.correct_fields) == (3, 0, 0)


def test_none_is_empty_with_zero_metrics(task3):
    result = score_answer(task3, "  none ", profile="strict")
    assert (result.status, result.item_f1, result.row_f1, result.poa) == ("empty", 0.0, 0.0, 0.0)
    assert result.reason == "answer is NONE"
    assert [c.verdict for c in result.cells] == ["omitted_row"] * 9


@pytest.mark.parametrize("profile", PROFILES)
def test_no_answer_is_missing(task3, profile):
    result = score_answer(task3, None, profile=profile)
    assert result.status == "missing"
    assert all(math.isnan(x) for x in (result.item_f1, result.row_f1, result.poa))
    assert (result.gold_rows, result.gold_fields) == (3, 9)
    assert (result.correct_fields, result.pred_fields, result.pred_rows, result.pairs) == (0, 0, 0, 0)
    assert (result.parse, result.cells) == (None, ())


# counting rules
def test_wrong_widths_duplicates_and_extras(task3):
    answer = "1|alpha|10|note\n1|alpha|10\n9|zeta|90\n2|beta"
    result = score_answer(task3, answer, profile="strict")
    # N_pred = sum max(k, cells) = 4 + 3 + 3 + 3; C_item = 3 (row 1) + 2 (row 2, one cell absent)
    assert (result.correct_fields, result.pred_fields, result.gold_fields) == (5, 13, 9)
    # a row with a fourth cell is not a correct row even with its three fields right
    assert (result.correct_rows, result.pred_rows) == (0, 4)
    assert result.item_f1 == pytest.approx(10 / 22)
    assert result.row_f1 == 0.0
    assert result.poa == 1.0
    assert "line 1: wrong_width (4 cells, expected 3)" in result.issues
    assert "row 2 (line 2): duplicate_row (repeats an earlier row's key: ('1',))" in result.issues
    assert "row 3 (line 3): extra_row (has a key not in the reference: ('9',))" in result.issues


def test_an_empty_cell_is_never_correct(make_task):
    task = make_task(("id", "n"), "a|\nb|2", fields={"n": {"type": "integer"}})
    result = score_answer(task, "a|\nb|2", profile="strict")
    assert result.correct_fields == 3
    assert [c.verdict for c in result.cells if c.column == "n"] == ["missing", "match"]


def test_keys_are_compared_after_canonicalization(make_task):
    task = make_task(("year", "v"), "2013|x\n2014|y", fields={"year": {"type": "integer"}})
    result = score_answer(task, "**2014.0**|y\n2013|x", profile="strict")
    assert (result.item_f1, result.row_f1, result.poa) == (1.0, 1.0, 0.0)


def test_composite_keys(make_task):
    task = make_task(("a", "b", "v"), "x|1|p\nx|2|q\ny|1|r", row_key=("a", "b"))
    result = score_answer(task, "x|2|q\nx|1|p\ny|2|r", profile="strict")
    assert (result.correct_rows, result.shared_keys, result.correct_pairs) == (2, 2, 0)


# per-cell records
def test_cell_records_cover_every_slot(task3):
    answer = "2|beta|20\n2|beta|22\n1|alpha|11|extra\n7|eta|70\n"
    result = score_answer(task3, answer, profile="strict")
    verdicts = [(c.pred_row, c.gold_row, c.column, c.verdict) for c in result.cells]
    assert verdicts == [
        (0, 1, "id", "match"), (0, 1, "name", "match"), (0, 1, "value", "match"),
        (1, 1, "id", "duplicate_row"), (1, 1, "name", "duplicate_row"), (1, 1, "value", "duplicate_row"),
        (2, 0, "id", "match"), (2, 0, "name", "match"), (2, 0, "value", "wrong"), (2, 0, "column_4", "extra_cell"),
        (3, None, "id", "extra_row"), (3, None, "name", "extra_row"), (3, None, "value", "extra_row"),
        (None, 2, "id", "omitted_row"), (None, 2, "name", "omitted_row"), (None, 2, "value", "omitted_row"),
    ]  # fmt: skip
    wrong = result.cells[8]
    assert (wrong.raw, wrong.canonical, wrong.reference) == ("11", "11", "10")
    assert len(result.cells) == result.pred_fields + (result.gold_rows - result.shared_keys) * 3
    assert {c.verdict for c in result.cells} <= set(VERDICTS)


def test_cell_records_show_raw_and_canonical_values(make_task):
    fahrenheit = {"offset": 32, "scale_num": 5, "scale_den": 9}
    task = make_task(("id", "t"), "a|8", fields={"t": {"type": "decimal", "units": {"deg F": fahrenheit}}})
    (key, cell) = score_answer(task, "a|46.4 deg F", profile="strict").cells
    assert (cell.raw, cell.canonical, cell.reference, cell.verdict) == ("46.4 deg F", "8", "8", "match")


# tolerance from user rules
def test_tolerance_applies_at_comparison(make_task):
    task = make_task(("id", "v"), "a|8.40\nb|1\nc|NA", fields={"v": {"type": "decimal"}}, task_id="tol_001")
    rules = Rules(entries=(("tol_001", TaskRules(tolerance=(("v", Decimal("0.01")),))),))
    result = score_answer(task, "a|8.41\nb|1.02\nc|NA", profile="strict", rules=rules)
    assert [c.verdict for c in result.cells if c.column == "v"] == ["match", "wrong", "match"]
    exact = score_answer(task, "a|8.41\nb|1.02\nc|NA", profile="strict")
    assert [c.verdict for c in exact.cells if c.column == "v"] == ["wrong", "wrong", "match"]


def test_tolerance_applies_to_percent_values(make_task):
    # paper profile: a column whose reference carries "%" keeps it in canonical values
    task = make_task(("id", "share"), "a|45%\nb|10%", task_id="tol_002")
    rules = Rules(entries=(("tol_002", TaskRules(tolerance=(("share", Decimal("0.5")),))),))
    result = score_answer(task, "a|45.4%\nb|11%", profile="paper", rules=rules)
    assert [c.verdict for c in result.cells if c.column == "share"] == ["match", "wrong"]


def test_paper_profile_never_merges_distinct_reference_keys(make_task):
    # "Alpha" and "ALPHA" are distinct rows of the reference: case-folding must not merge them.
    task = make_task(("id", "v"), "Alpha|1\nALPHA|2", task_id="case_001")
    with pytest.warns(UserWarning, match="would merge distinct reference rows in key column"):
        result = score_answer(task, "Alpha|1\nALPHA|2", profile="paper")
    assert (result.item_f1, result.row_f1, result.poa) == (1.0, 1.0, 1.0)


# prepared tasks and bad inputs
def test_prepared_tasks_give_the_same_results(task3):
    prepared = prepare_task(task3, profile="strict")
    assert isinstance(prepared, PreparedTask)
    for answer, *_ in KNOWN_ANSWERS.values():
        assert score_answer(prepared, answer) == score_answer(task3, answer, profile="strict")


def test_prepared_task_keeps_its_profile_and_rules(task3):
    prepared = prepare_task(task3, profile="strict")
    with pytest.raises(SgrKitError, match="test_task_001 was prepared with profile 'strict'; found profile='paper'"):
        score_answer(prepared, "NONE", profile="paper")
    with pytest.raises(SgrKitError, match="task test_task_001 is prepared: pass rules to prepare_task"):
        score_answer(prepared, "NONE", rules=Rules())


def test_unknown_profile_is_an_error(task3):
    with pytest.raises(SgrKitError, match="profile must be one of 'paper', 'strict'; found 'loose'"):
        score_answer(task3, "NONE", profile="loose")


def test_duplicate_reference_keys_are_an_error(make_task):
    task = make_task(("id", "v"), "a|1\nb|2\na|3", task_id="dup_001")
    message = r"task dup_001: reference rows must have unique row keys; rows 1 and 3 share the key \('a',\)"
    with pytest.raises(SgrKitError, match=message):
        score_answer(task, "a|1", profile="strict")


def test_a_reference_without_rows_is_an_error(make_task):
    task = make_task(("id", "v"), "id|v", task_id="bad_001")
    message = (
        r"task bad_001 \(tests\): the reference answer must have at least one data row under profile 'strict'; "
        r"found status parse_failure"
    )
    with pytest.raises(SgrKitError, match=message):
        prepare_task(task, profile="strict")


def test_a_row_key_outside_the_schema_is_an_error(make_task):
    task = make_task(("id", "v"), "a|1", row_key=("code",), task_id="key_001")
    message = r"task key_001 \(tests\): row_key must name one or more schema columns \(id, v\); found \['code'\]"
    with pytest.raises(SgrKitError, match=message):
        prepare_task(task, profile="strict")


def test_answers_must_match_the_task(task3):
    answer = Answer("sys", "other_001", 0, "NONE", source="runs.jsonl:4")
    message = r"answer \(runs.jsonl:4\) is for task 'other_001'; expected task 'test_task_001'"
    with pytest.raises(SgrKitError, match=message):
        score_answer(task3, answer, profile="strict")
    with pytest.raises(SgrKitError, match="task test_task_001: answer must be str, Answer or None; found int"):
        score_answer(task3, 3, profile="strict")


# properties
_VALUE = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)


@st.composite
def tables(draw):
    k = draw(st.integers(2, 4))  # a one-column line has no separator: strict parsing calls it prose
    m = draw(st.integers(1, 8))
    columns = tuple(f"col_{j}" for j in range(k))
    rows = [tuple([f"k{i}"] + [draw(_VALUE) for _ in range(k - 1)]) for i in range(m)]
    return columns, rows


def _answer_rows(draw, rows, k):
    """Reference rows with some cells wrong, some rows dropped, some extras (keys stay unique)."""
    out = []
    for row in rows:
        if draw(st.integers(0, 4)) == 0:
            continue
        row = list(row)
        if k > 1 and draw(st.booleans()):
            row[draw(st.integers(1, k - 1))] = draw(_VALUE)
        out.append(tuple(row))
    out += [tuple([f"x{i}"] + [draw(_VALUE) for _ in range(k - 1)]) for i in range(draw(st.integers(0, 2)))]
    return out


_SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(tables(), st.sampled_from(PROFILES))
def test_the_reference_scores_one(table, profile):
    columns, rows = table
    task = build_task(columns, rows=rows)
    result = score_answer(task, task.reference, profile=profile)
    assert (result.item_f1, result.row_f1, result.poa) == (1.0, 1.0, 1.0 if len(rows) > 1 else 0.0)


@_SETTINGS
@given(tables(), st.sampled_from(PROFILES), st.data())
def test_metrics_in_unit_interval_and_f1_unchanged_by_shuffling(table, profile, data):
    columns, rows = table
    task = build_task(columns, rows=rows)
    answer_rows = _answer_rows(data.draw, rows, len(columns))
    shuffled = data.draw(st.permutations(answer_rows))
    first = score_answer(task, table_text(columns, answer_rows), profile=profile)
    second = score_answer(task, table_text(columns, shuffled), profile=profile)
    for result in (first, second):
        if result.status in ("parsed", "empty"):
            assert all(0.0 <= x <= 1.0 for x in (result.item_f1, result.row_f1, result.poa))
    assert first.status == second.status
    if first.status != "parse_failure":
        assert (first.item_f1, first.row_f1) == (second.item_f1, second.row_f1)


@_SETTINGS
@given(st.integers(3, 12), st.sampled_from(PROFILES))
def test_a_reversed_table_has_zero_order_accuracy(n, profile):
    rows = [(f"k{i}", f"v{i}") for i in range(n)]
    task = build_task(("id", "v"), rows=rows)
    result = score_answer(task, table_text(("id", "v"), rows[::-1]), profile=profile)
    assert (result.item_f1, result.row_f1, result.poa) == (1.0, 1.0, 0.0)


_TABLE_ALPHABET = st.sampled_from(
    list("|\t,\"'\n -:`*[]()<>{}ab1.;") + ["NONE", "id", "value", "```", "<td>", "\u00b5"]
)


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(_TABLE_ALPHABET, max_size=60).map("".join)), st.sampled_from(PROFILES))
def test_no_text_crashes_the_scorer(text, profile):
    task = build_task(("id", "name", "value"), REFERENCE_3X3, fields={"value": {"type": "integer"}})
    result = score_answer(task, text, profile=profile)
    assert result.status in STATUSES
    if result.status in ("parsed", "empty"):
        assert all(0.0 <= x <= 1.0 for x in (result.item_f1, result.row_f1, result.poa))
    else:
        assert math.isnan(result.item_f1) and result.reason


# score_runs
def _dtypes(columns: dict[str, str]) -> dict[str, str]:
    return {c: str(pd.Series([], dtype=d).dtype) for c, d in columns.items()}


@pytest.fixture
def two_tasks(make_task):
    return [
        make_task(("id", "v"), "a|1\nb|2", task_id="t_001"),
        make_task(("id", "v"), "a|1\nb|2\nc|3", task_id="t_001-g", metadata={"synthetic": True}),
    ]


def test_score_runs_table(two_tasks):
    runs = [
        Answer("sys_b", "t_001", 1, "a|1\nb|2", source="runs.jsonl:3"),
        Answer("sys_b", "t_001", 0, "b|2\na|1", source="runs.jsonl:2"),
        Answer("sys_a", "t_001-g", 0, "id|v", source="runs.jsonl:1"),
    ]
    scores = score_runs({t.task_id: t for t in two_tasks}, runs, profile="strict")
    assert list(scores.columns) == list(SCORE_COLUMNS)
    assert scores.dtypes.astype(str).to_dict() == _dtypes(SCORE_COLUMNS)
    got = scores[["system", "task_id", "repeat", "status", "variant", "base_id", "synthetic"]].values.tolist()
    assert got == [
        ["sys_b", "t_001", 0, "parsed", "constraint", "t_001", False],
        ["sys_b", "t_001", 1, "parsed", "constraint", "t_001", False],
        ["sys_b", "t_001-g", 0, "missing", "goal", "t_001", True],
        ["sys_a", "t_001", 0, "missing", "constraint", "t_001", False],
        ["sys_a", "t_001-g", 0, "parse_failure", "goal", "t_001", True],
    ]
    assert scores["poa"].tolist()[:2] == [0.0, 1.0]
    assert scores["item_f1"].isna().tolist() == [False, False, True, True, True]
    assert scores.loc[2, "reason"] == "no answer for this task"


def test_score_runs_accepts_an_iterable_of_tasks_and_no_runs(two_tasks):
    scores = score_runs(two_tasks, [], profile="strict")
    assert scores.empty
    assert scores.dtypes.astype(str).to_dict() == _dtypes(SCORE_COLUMNS)


def test_score_runs_with_cells(two_tasks):
    runs = [Answer("s", "t_001", 0, "a|1\nb|3|x")]
    result = score_with_cells(two_tasks, runs, profile="strict", progress=True)
    assert isinstance(result, ScoredRuns)
    cells = result.cells
    assert list(cells.columns) == list(CELL_COLUMNS)
    assert cells["verdict"].tolist() == ["match", "match", "match", "wrong", "extra_cell"]
    assert cells["gold_row"].tolist() == [0, 0, 1, 1, 1]
    assert str(cells["pred_row"].dtype) == "Int64"
    assert cells_frame([]).dtypes.astype(str).to_dict() == cells.dtypes.astype(str).to_dict()


def test_cells_frame_marks_absent_values_missing(two_tasks):
    scored = score_all(two_tasks, [Answer("s", "t_001", 0, "a|1")], profile="strict")
    cells = cells_frame(scored)
    omitted = cells[cells["verdict"] == "omitted_row"]
    assert omitted["pred_row"].isna().all() and omitted["raw"].isna().all()
    assert omitted["reference"].tolist() == ["b", "2"]


def test_score_runs_says_when_the_goal_variants_were_not_loaded(two_tasks):
    constraint_only = two_tasks[:1]
    with pytest.raises(SgrKitError, match=r"unknown task id 't_001-g'; it is not among the tasks; its constraint "
                                          r"variant t_001 is loaded but no goal-oriented \(-g\) task is"):
        score_runs(constraint_only, [Answer("s", "t_001-g", 0, "a|1", source="runs.jsonl:2")])


def test_score_runs_rejects_unknown_tasks_and_repeated_answers(two_tasks):
    message = r"answer \(runs.jsonl:7\): unknown task id 'zz_001'; it is not among the tasks"
    with pytest.raises(SgrKitError, match=message):
        score_runs(two_tasks, [Answer("s", "zz_001", 0, "", source="runs.jsonl:7")])
    twice = [Answer("s", "t_001", 0, "", source="a.jsonl:1"), Answer("s", "t_001", 0, "", source="a.jsonl:2")]
    message = r"answer \(a.jsonl:2\): a second answer of system 's' to task 't_001' repeat 0 \(first: answer \(a.jsonl:1"
    with pytest.raises(SgrKitError, match=message):
        score_runs(two_tasks, twice)
    with pytest.raises(SgrKitError, match="tasks: task id 't_001' appears twice"):
        score_runs(two_tasks + two_tasks[:1], [])
    with pytest.raises(SgrKitError, match="runs: expected Answer objects, found str"):
        score_runs(two_tasks, ["a|1"])


def test_score_runs_prepares_each_task_once(two_tasks, monkeypatch):
    import sgr_kit.score.runs as score_module

    calls = []
    original = score_module.prepare_task

    def counting(task, **options):
        calls.append(task.task_id)
        return original(task, **options)

    monkeypatch.setattr(score_module, "prepare_task", counting)
    runs = [Answer(s, "t_001", r, "a|1") for s in ("x", "y") for r in range(3)]
    score_runs(two_tasks, runs, profile="strict")
    assert sorted(calls) == ["t_001", "t_001-g"]


def test_system_whose_every_answer_is_null_is_missing_not_dropped(two_tasks, tmp_path):
    from sgr_kit.load import load_runs

    path = tmp_path / "runs.jsonl"
    path.write_text('{"system": "x", "task_id": "t_001", "answer": "a|1"}\n'
                    '{"system": "ghost", "task_id": "t_001", "answer": null}\n')
    scores = score_runs(two_tasks, load_runs(path, tasks={t.task_id: t for t in two_tasks}), profile="strict")
    ghost = scores[scores["system"] == "ghost"]
    assert sorted(ghost["task_id"]) == ["t_001", "t_001-g"]
    assert set(ghost["status"]) == {"missing"}


def test_null_answer_at_a_repeat_is_missing_at_that_repeat(two_tasks, tmp_path):
    from sgr_kit.aggregate import task_means
    from sgr_kit.load import load_runs

    path = tmp_path / "runs.jsonl"
    path.write_text('{"system": "x", "task_id": "t_001", "repeat": 0, "answer": "a|1\\nb|2"}\n'
                    '{"system": "x", "task_id": "t_001", "repeat": 1, "answer": null}\n'
                    '{"system": "x", "task_id": "t_001", "repeat": 2, "answer": null}\n')
    scores = score_runs(two_tasks, load_runs(path, tasks={t.task_id: t for t in two_tasks}), profile="strict")
    mine = scores[scores["task_id"] == "t_001"].set_index("repeat")
    assert mine["status"].to_dict() == {0: "parsed", 1: "missing", 2: "missing"}
    # the null repeats count: under the zero policy the task mean is 1/3, not 1
    means = task_means(scores).set_index("task_id")
    assert means.loc["t_001", "item_f1"] == pytest.approx(1 / 3)


def test_score_runs_is_deterministic(two_tasks, rng):
    texts = ["a|1\nb|2", "b|2\na|1", "a|9", "NONE", "id|v", "x|1\na|1"]
    picks = rng.integers(len(texts), size=24)
    runs = [Answer(f"s{i % 3}", two_tasks[i % 2].task_id, i // 6, texts[p]) for i, p in enumerate(picks)]
    shuffled = list(runs)
    random.Random(1).shuffle(shuffled)
    pd.testing.assert_frame_equal(score_runs(two_tasks, runs), score_runs(two_tasks, runs))
    a = score_runs(two_tasks, runs).sort_values(["system", "task_id", "repeat"]).reset_index(drop=True)
    b = score_runs(two_tasks, shuffled).sort_values(["system", "task_id", "repeat"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


# the real release-format tasks
@pytest.fixture
def release_tasks(release_dir):
    from sgr_kit.prepare import load_tasks

    return load_tasks(release_dir / "constraint.jsonl", release_dir / "goal.jsonl")


@pytest.mark.parametrize("profile", PROFILES)
def test_fixture_references_score_one(release_tasks, profile):
    assert len(release_tasks) == 4
    for task in release_tasks.values():
        result = score_answer(task, task.reference, profile=profile)
        assert (result.status, result.item_f1, result.row_f1, result.poa) == ("parsed", 1.0, 1.0, 1.0), task.task_id


def _replace_cell(reference: str, row: int, column: int, value: str) -> str:
    lines = reference.splitlines()
    cells = lines[row].split("|")
    cells[column] = value
    lines[row] = "|".join(cells)
    return "\n".join(lines)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("column", "value"),
    [
        (15, "61.34 deg F"),  # temperature_deg_C 16.30: (61.34 - 32) * 5 / 9 = 16.3
        (16, "0.4 mS/cm"),  # specific_conductance_uS_cm 400.00
        (14, "8.4"),  # dissolved_oxygen_mg_L 8.40: trailing zeros
        (14, "8400 ug/L"),
        (7, "USGS-08067000, USGS-08057410"),  # cohort_station_ids reordered, comma separated
        (9, "37.0"),  # eligible_activity_count, integral
    ],
)
def test_fixture_equivalent_spellings_score_one(release_tasks, column, value, profile):
    task = release_tasks["wqp_activity_panel_001"]
    answer = _replace_cell(task.reference, 0, column, value)
    assert answer != task.reference
    result = score_answer(task, answer, profile=profile)
    assert (result.item_f1, result.row_f1, result.poa) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    ("column", "value"),
    [
        (14, "8.404"),  # predictions are never rounded
        (16, "0.4 S/m"),  # undeclared unit
        (9, "37.5"),  # integers must be integral
        (15, ""),  # empty cell
    ],
)
def test_fixture_non_equivalent_spellings_cost_one_field(release_tasks, column, value):
    task = release_tasks["wqp_activity_panel_001"]
    result = score_answer(task, _replace_cell(task.reference, 0, column, value), profile="strict")
    fields = 12 * 18
    assert (result.correct_fields, result.correct_rows) == (fields - 1, 11)
    assert result.item_f1 == pytest.approx(2 * (fields - 1) / (2 * fields))
    assert result.row_f1 == pytest.approx(22 / 24)
    assert [c.column for c in result.cells if c.verdict != "match"] == [task.schema.columns[column]]


def test_fixture_header_optional_and_composite_key(release_tasks):
    task = release_tasks["arxiv_historical_title_001"]
    body = task.reference.splitlines()[1:]
    answer = "\n".join(body[:1] + ["2103.00222|2011.10443|v2", "2103.00222|2011.10443|v1"] + body[2:][::-1])
    result = score_answer(task, answer, profile="strict")
    # second row wrong in its first occurrence; the duplicate earns nothing; six rows reversed after it
    assert (result.correct_fields, result.pred_fields, result.correct_rows) == (23, 27, 7)
    assert result.shared_keys == 8
    assert result.correct_pairs == 7 + 6  # row 1 before all; row 2 before the six reversed; none among those


# hardening: scorer-side failures, the repr, invalid cells under user-declared types
def test_a_failure_inside_scoring_is_a_status_of_its_own(task3, monkeypatch):
    import sgr_kit.score.answer as answer_module

    def broken(prepared, parsed):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(answer_module, "_score_parsed", broken)
    result = score_answer(task3, "1|alpha|10", profile="strict")
    assert result.status == "scorer_error" and "scorer_error" in STATUSES
    assert all(math.isnan(x) for x in (result.item_f1, result.row_f1, result.poa))
    assert result.reason == "scoring failed: RecursionError: maximum recursion depth exceeded"
    assert (result.gold_rows, result.gold_fields, result.cells) == (3, 9, ())
    with pytest.raises(SgrKitError, match=r"answer must be str, Answer or None; found int"):
        score_answer(task3, 42, profile="strict")  # a wrong call still raises


def test_the_repr_of_a_result_is_one_line(task3):
    result = score_answer(task3, REFERENCE_3X3 + "\n4|delta|40", profile="strict")
    text = repr(result)
    assert "\n" not in text and "CellRecord" not in text
    assert text == ("ScoreResult(task_id='test_task_001', status='parsed', item_f1=0.8571, row_f1=0.8571, poa=1.0, "
                    "fields=9/9/12, rows=3/3/4, pairs=3/3, cells=12)")
    assert "reason='answer is NONE'" in repr(score_answer(task3, "NONE", profile="strict"))


@pytest.mark.parametrize("profile", PROFILES)
def test_an_invalid_cell_never_matches_where_user_rules_declare_a_number(make_task, profile):
    task = make_task(("id", "version"), rows=[("a", "v1"), ("b", "2")])
    rules = Rules(entries=(("*", TaskRules(types=(("version", "integer"),))),), source="rules.yaml")
    with pytest.warns(UserWarning, match=r"rules\.yaml declares column 'version' integer, but 1 reference cell\(s\) "
                                         r"are not numbers there \(first: 'v1' in row 1\)"):
        prepared = prepare_task(task, profile=profile, rules=rules)
    result = score_answer(prepared, "a|v1\nb|2.0")
    verdicts = {(c.pred_row, c.column): c.verdict for c in result.cells}
    assert verdicts[(0, "version")] == "wrong"  # INVALID:v1 vs INVALID:v1: no match
    assert verdicts[(1, "version")] == "match"
    assert result.correct_fields == 3


@pytest.mark.parametrize("profile", PROFILES)
def test_a_rubric_typed_invalid_cell_matches_its_identical_text_as_the_reference_scorer_does(make_task, profile):
    # reference-scorer notes, "Cleaning every cell": an invalid marker matches only an identical
    # invalid text, so NA matches gold NA (kept for types the rubric declares)
    task = make_task(("id", "n"), rows=[("a", "NA"), ("b", "2")], fields={"n": {"type": "integer"}})
    result = score_answer(task, "a|NA\nb|2", profile=profile)
    assert (result.item_f1, result.row_f1) == (1.0, 1.0)


# --- real released tasks (../shared/fixtures/release-original): answers derived from their references,
# expected counts worked out by hand from the reference scorer's definitions (Item-F1 = 2 C / (N_gold + N_pred),
# Row-F1 = 2 C_row / (gold rows + predicted rows), P.O.A. = correctly ordered shared pairs / pairs).

from sgr_kit.prepare import load_tasks as _load_tasks  # noqa: E402


@pytest.fixture
def released(original_dir):
    return _load_tasks(original_dir)


def _metrics(task, text, profile):
    r = score_answer(task, text, profile=profile)
    return r.status, r.item_f1, r.row_f1, r.poa


@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_each_released_reference_scores_one_against_itself(released, profile):
    for task in released.values():
        assert _metrics(task, task.reference, profile) == ("parsed", 1.0, 1.0, 1.0), task.task_id


@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_answers_derived_from_a_per_line_released_reference(released, profile):
    task = released["waterquality_004"]  # 3 records of k = 9 fields, keyed by HUC: N_gold = 27
    w1, w2, w3 = task.reference.splitlines()
    approx = pytest.approx
    # rows dropped (W2): C = 18, N_pred = 18 -> 36/45 = 0.8; C_row = 2 -> 4/5; W1 before W3 -> 1/1
    assert _metrics(task, f"{w1}\n{w3}", profile) == ("parsed", approx(0.8), approx(0.8), 1.0)
    # reordered W3, W2, W1: every field right; the 3 reference pairs all reversed -> P.O.A. 0/3
    assert _metrics(task, f"{w3}\n{w2}\n{w1}", profile) == ("parsed", 1.0, 1.0, 0.0)
    # one wrong non-key cell (W2's common_start_year 1993 -> 1994): C = 26 -> 52/54; C_row = 2 -> 4/6
    wrong = w2.replace("|1993|1969|", "|1994|1969|")
    assert wrong != w2
    assert _metrics(task, f"{w1}\n{wrong}\n{w3}", profile) == ("parsed", approx(26 / 27), approx(2 / 3), 1.0)
    # a fabricated fourth row: C = 27, N_pred = 36 -> 54/63 = 6/7; C_row = 3 -> 6/7; order kept -> 1
    fake = "|".join(["99999999", "TCEQMAIN-1"] + ["2000"] * 7)
    assert _metrics(task, f"{w1}\n{w2}\n{w3}\n{fake}", profile) == ("parsed", approx(6 / 7), approx(6 / 7), 1.0)
    # a header line in the schema's spelling is skipped: 1/1/1
    header = "|".join(task.schema.columns)
    assert _metrics(task, f"{header}\n{task.reference}", profile) == ("parsed", 1.0, 1.0, 1.0)


def test_a_per_line_released_reference_written_on_one_line(released):
    task = released["waterquality_004"]
    one_line = ",".join(task.reference.splitlines())
    # paper: records read by the schema's width -> the same as one record per line
    assert _metrics(task, one_line, "paper") == ("parsed", 1.0, 1.0, 1.0)
    assert _metrics(task, one_line.replace(",", ";"), "paper") == ("parsed", 1.0, 1.0, 1.0)
    # strict (the benchmark's scorer; no separator declared): one row of 25 cells keyed by W1's HUC; its first
    # 8 cells are right, the 9th is '1982,12030202': C = 8, N_pred = max(9, 25) = 25 -> 16/52; C_row = 0;
    # one shared key -> P.O.A. 0
    assert _metrics(task, one_line, "strict") == ("parsed", pytest.approx(16 / 52), 0.0, 0.0)


@pytest.mark.parametrize("profile", ["paper", "strict"])
def test_answers_derived_from_a_one_line_released_reference(released, profile):
    task = released["comptox_012"]  # 2 records of k = 6 joined by ',', keyed by 4 columns: N_gold = 12
    r1, r2 = task.reference.split(",")
    # one record per line instead of one line: the same answer
    assert _metrics(task, f"{r1}\n{r2}", profile) == ("parsed", 1.0, 1.0, 1.0)
    # reordered: P.O.A. 0 (one pair, reversed)
    assert _metrics(task, f"{r2},{r1}", profile) == ("parsed", 1.0, 1.0, 0.0)
    # a row dropped: C = 6, N_pred = 6 -> 12/18 = 2/3; C_row = 1 -> 2/3; one shared key -> P.O.A. 0
    assert _metrics(task, r1, profile) == ("parsed", pytest.approx(2 / 3), pytest.approx(2 / 3), 0.0)
    # a wrong key cell (side child -> aerosol): that row is an extra, R2 is omitted: C = 6, N_pred = 12 -> 12/24
    assert _metrics(task, f"{r1},{r2.replace('child', 'aerosol')}", profile) == ("parsed", 0.5, 0.5, 0.0)
    # a wrong non-key cell (share): C = 11 -> 22/24; C_row = 1 -> 2/4
    assert _metrics(task, f"{r1},{r2.replace('6934/16904', '6934/16905')}", profile) == (
        "parsed", pytest.approx(11 / 12), 0.5, 1.0)
    # a Markdown table with the schema's header: 1/1/1
    md = "| " + " | ".join(task.schema.columns) + " |\n|" + "---|" * 6 + "\n" + "\n".join(
        "| " + r.replace("|", " | ") + " |" for r in (r1, r2))
    assert _metrics(task, md, profile) == ("parsed", 1.0, 1.0, 1.0)


def test_a_released_style_reference_whose_cells_hold_the_separator(make_task):
    # README: consumerfinance_012's records hold 'TRANSUNION INTERMEDIATE HOLDINGS, INC.' and are joined by ','
    ref = "Peak|TRANSUNION INTERMEDIATE HOLDINGS, INC.|9,Low|EQUIFAX, INC.|4"
    task = make_task(("kind", "company", "n"), ref, record_separator=",", gold_rows=2)
    per_line = ref.replace(",Low", "\nLow")
    for text in (ref, per_line):
        assert _metrics(task, text, "paper") == ("parsed", 1.0, 1.0, 1.0)
    # strict splits answers plainly (the benchmark scorer's rule) while the reference is read by width:
    # rows 'Peak|TRANSUNION INTERMEDIATE HOLDINGS' (2 cells, key Peak: kind right, company wrong, n missing),
    # ' INC.|9' (extra), 'Low|EQUIFAX' (key Low: kind right), ' INC.|4' (extra):
    # C = 2, N_gold = 6, N_pred = 4 * 3 = 12 -> 4/18; C_row = 0; Peak before Low -> P.O.A. 1
    assert _metrics(task, ref, "strict") == ("parsed", pytest.approx(4 / 18), 0.0, 1.0)
