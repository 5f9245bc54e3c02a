"""Agreement measures against independent implementations, published worked examples and a simulation."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

from sgr_kit.errors import SgrKitError
from sgr_kit.schema import AGREEMENT_COLUMNS, ANNOTATION_LABELS
from sgr_kit.stats.agreement import (
    agreement, category_agreement, cohen_kappa, confusion_matrix, fleiss_kappa, krippendorff_alpha,
    population_kappa, simulate_annotators,
)  # fmt: skip


def _labels(by_annotator: dict[str, list]) -> pd.DataFrame:
    """Labels of annotators over items t0, t1, ...; None leaves an item out."""
    rows = [("m", f"t{i}", 0, name, label)
            for name, labels in by_annotator.items() for i, label in enumerate(labels) if label is not None]
    return pd.DataFrame(rows, columns=["system", "task_id", "repeat", "annotator", "label"])


def _random_labels(rng, n_items, n_annotators, k=4, missing=0.0):
    cats = list(ANNOTATION_LABELS[:k])
    truth = rng.integers(0, k, n_items)
    out = {}
    for a in range(n_annotators):
        keep = rng.random(n_items) < 0.6
        given = np.where(keep, truth, rng.integers(0, k, n_items))
        out[f"a{a}"] = [cats[g] if rng.random() >= missing else None for g in given]
    return out


def _value(table, measure, annotators):
    row = table[(table["measure"] == measure) & (table["annotators"] == annotators)]
    assert len(row) == 1, (measure, annotators)
    return row.iloc[0]


# ---- published worked examples ----

def test_cohen_kappa_of_the_textbook_two_by_two_table():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> p_o = 0.7, p_e = 0.5, kappa = 0.4
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    p_o = 35 / 50
    p_e = (25 / 50) * (30 / 50) + (25 / 50) * (20 / 50)
    assert cohen_kappa(first, second) == pytest.approx((p_o - p_e) / (1 - p_e))
    assert cohen_kappa(first, second) == pytest.approx(0.4)


FLEISS_EXAMPLE = [  # Fleiss (1971) as reproduced in the literature: 10 subjects, 14 raters, 5 categories
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_of_the_worked_example():
    assert round(fleiss_kappa(FLEISS_EXAMPLE), 3) == 0.210
    assert fleiss_kappa(FLEISS_EXAMPLE) == pytest.approx(inter_rater.fleiss_kappa(np.array(FLEISS_EXAMPLE)))


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the nominal example with
# missing values: 4 observers, 12 units; published alpha = 0.743.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_alpha_of_krippendorffs_own_example():
    counts = np.zeros((12, 5))
    for observer in KRIPPENDORFF_EXAMPLE:
        for unit, value in enumerate(observer):
            if value is not None:
                counts[unit, value - 1] += 1
    assert round(krippendorff_alpha(counts), 3) == 0.743
    # the same through the labels table (values as categories), with unit 12 (one value) left out
    names = ANNOTATION_LABELS[:5]
    table = agreement(_labels({f"o{i}": [names[v - 1] if v else None for v in obs]
                               for i, obs in enumerate(KRIPPENDORFF_EXAMPLE)}), n_boot=0)
    alpha = _value(table, "krippendorff_alpha", "all")
    assert round(alpha["value"], 3) == 0.743 and alpha["n_items"] == 11
    assert "1 item(s) with one label left out" in alpha["note"]


# ---- against independent implementations on random data ----

@pytest.mark.parametrize("seed", range(6))
def test_cohen_kappa_agrees_with_sklearn_and_statsmodels(seed):
    rng = np.random.default_rng(seed)
    by = _random_labels(rng, 60, 2, k=int(rng.integers(2, 7)), missing=0.15)
    table = agreement(_labels(by), n_boot=0)
    both = [(x, y) for x, y in zip(by["a0"], by["a1"]) if x is not None and y is not None]
    first, second = map(list, zip(*both))
    row = _value(table, "cohen_kappa", "a0|a1")
    assert row["n_items"] == len(both)
    assert row["value"] == pytest.approx(cohen_kappa_score(first, second))
    cats = sorted(set(first) | set(second))
    contingency = pd.crosstab(pd.Categorical(first, cats), pd.Categorical(second, cats), dropna=False).to_numpy()
    assert row["value"] == pytest.approx(inter_rater.cohens_kappa(contingency).kappa)
    assert _value(table, "percent_agreement", "a0|a1")["value"] == pytest.approx(np.mean(np.array(first) == second))


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_kappa_agrees_with_statsmodels_on_items_everyone_labelled(seed):
    rng = np.random.default_rng(100 + seed)
    by = _random_labels(rng, 50, int(rng.integers(3, 6)), missing=0.1)
    table = agreement(_labels(by), n_boot=0)
    complete = [i for i in range(50) if all(by[a][i] is not None for a in by)]
    data = np.array([[by[a][i] for a in by] for i in complete], dtype=object)
    counts, _ = inter_rater.aggregate_raters(data)
    row = _value(table, "fleiss_kappa", "all")
    assert row["n_items"] == len(complete)
    assert row["value"] == pytest.approx(inter_rater.fleiss_kappa(counts, method="fleiss"))
    unanimous = np.mean([len(set(r)) == 1 for r in data])
    assert _value(table, "percent_agreement", "all")["value"] == pytest.approx(unanimous)


@pytest.mark.parametrize("seed", range(6))
def test_krippendorff_alpha_agrees_with_the_krippendorff_package_with_missing_labels(seed):
    rng = np.random.default_rng(200 + seed)
    by = _random_labels(rng, 40, int(rng.integers(2, 5)), missing=0.3)
    table = agreement(_labels(by), n_boot=0)
    codes = {c: i for i, c in enumerate(ANNOTATION_LABELS)}
    data = np.array([[codes[v] if v is not None else np.nan for v in labels] for labels in by.values()])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert _value(table, "krippendorff_alpha", "all")["value"] == pytest.approx(expected)


# ---- the table ----

def test_table_has_fixed_columns_and_one_row_per_measure_and_annotator_set():
    rng = np.random.default_rng(1)
    table = agreement(_labels(_random_labels(rng, 30, 3)), n_boot=50)
    assert tuple(table.columns) == AGREEMENT_COLUMNS
    pairs = ["a0|a1", "a0|a2", "a1|a2"]
    assert table[["measure", "annotators"]].values.tolist() == (
        [["percent_agreement", p] for p in pairs] + [["percent_agreement", "all"]]
        + [["cohen_kappa", p] for p in pairs] + [["fleiss_kappa", "all"], ["krippendorff_alpha", "all"]])
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()


def test_pair_names_are_sorted_whatever_the_input_order():
    table = agreement(_labels({"zoe": ["correct", "scope_drift"], "adam": ["correct", "correct"]}), n_boot=0)
    assert set(table["annotators"]) == {"adam|zoe", "all"}


def test_same_seed_same_intervals_other_seed_other_intervals():
    labels = _labels(_random_labels(np.random.default_rng(3), 40, 2))
    a, b = agreement(labels, n_boot=300, seed=7), agreement(labels, n_boot=300, seed=7)
    pd.testing.assert_frame_equal(a, b)
    c = agreement(labels, n_boot=300, seed=8)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    none = agreement(labels, n_boot=0)
    assert none["ci_low"].isna().all() and np.allclose(none["value"], a["value"])


def test_bootstrap_resamples_match_a_loop_over_resampled_items():
    # the vectorized kernel against sklearn on explicitly resampled items
    from sgr_kit.stats._resample import problem_weights

    by = _random_labels(np.random.default_rng(5), 30, 2)
    labels = _labels(by)
    table = agreement(labels, n_boot=200, seed=11, ci=0.9)
    rng = np.random.default_rng(11)
    weights = problem_weights(rng, 30, 200)  # the pair's items are resampled once, for both its measures
    items = np.array(sorted(range(30), key=lambda i: f"t{i}"))  # items are sorted by task id
    first, second = np.array(by["a0"], dtype=object)[items], np.array(by["a1"], dtype=object)[items]
    loop = []
    for row in weights.astype(int):
        drawn = np.repeat(np.arange(30), row)
        loop.append(cohen_kappa_score(first[drawn], second[drawn]))
    low, high = np.quantile(loop, [0.05, 0.95])
    row = _value(table, "cohen_kappa", "a0|a1")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))


def test_kappa_is_nan_with_a_note_when_everyone_used_one_category():
    table = agreement(_labels({"a": ["correct"] * 4, "b": ["correct"] * 4}), n_boot=100)
    kappa = _value(table, "cohen_kappa", "a|b")
    assert math.isnan(kappa["value"]) and "expected agreement is 1" in kappa["note"]
    assert math.isnan(_value(table, "krippendorff_alpha", "all")["value"])
    assert _value(table, "percent_agreement", "a|b")["value"] == 1.0


def test_pairs_without_shared_items_say_so():
    table = agreement(_labels({"a": ["correct", None], "b": [None, "correct"]}), n_boot=10)
    row = _value(table, "cohen_kappa", "a|b")
    assert row["n_items"] == 0 and math.isnan(row["value"]) and row["note"] == "no items to compare"


def test_paper_names_are_read_as_codes():
    table = agreement(_labels({"a": ["Retrieval-Scope Drift", "Correct"], "b": ["scope_drift", "correct"]}),
                      n_boot=0)
    assert _value(table, "percent_agreement", "a|b")["value"] == 1.0


@pytest.mark.parametrize(
    ("labels", "kwargs", "match"),
    [
        (_labels({"a": ["correct"]}), {}, r"expected labels of two or more annotators, found 'a'"),
        (_labels({"a": ["correct"], "b": ["typo"]}), {}, r"labels row 1: unknown label 'typo'"),
        (_labels({"a": ["correct"]}).drop(columns="repeat"), {}, r"lacks column\(s\) repeat"),
        (pd.concat([_labels({"a": ["correct"], "b": ["correct"]})] * 2), {}, r"'a' labelled .* twice"),
        (_labels({"a": ["correct"], "b": ["correct"]}), {"ci": 95}, r"ci: expected a level between 0 and 1"),
        (_labels({"a": ["correct"], "b": ["correct"]}), {"n_boot": -1}, r"n_boot: expected a whole number"),
        ([1, 2], {}, r"expected a DataFrame"),
        (_labels({"a": ["correct"], "b": ["correct"]}).assign(repeat=[0, None]), {}, r"'repeat' must hold whole"),
    ],
)
def test_bad_input_is_a_clear_error(labels, kwargs, match):
    with pytest.raises(SgrKitError, match=match):
        agreement(labels, **kwargs)


def test_errors_name_file_and_line_when_the_table_has_them():
    labels = _labels({"a": ["correct"], "b": ["typo"]}).assign(file="b.csv", line=[2, 7])
    with pytest.raises(SgrKitError, match=r"b\.csv:7: unknown label 'typo'"):
        agreement(labels)


def test_measure_functions_refuse_malformed_input():
    with pytest.raises(SgrKitError, match="two equally long"):
        cohen_kappa(["a"], ["a", "b"])
    with pytest.raises(SgrKitError, match="same number"):
        fleiss_kappa([[2, 0], [1, 0]])
    assert math.isnan(krippendorff_alpha([[1, 0], [0, 1]]))


# ---- confusion matrix and per-category agreement ----

def test_confusion_matrix_counts_shared_items():
    by = _random_labels(np.random.default_rng(9), 40, 2, missing=0.1)
    labels = _labels(by)
    table = confusion_matrix(labels, "a0", "a1")
    both = [(x, y) for x, y in zip(by["a0"], by["a1"]) if x is not None and y is not None]
    assert table.to_numpy().sum() == len(both)
    for (x, y) in set(both):
        assert table.loc[x, y] == both.count((x, y))
    assert list(table.index) == [c for c in ANNOTATION_LABELS if c in table.index]
    with pytest.raises(SgrKitError, match=r"no annotator 'zed'"):
        confusion_matrix(labels, "a0", "zed")


def test_category_agreement_is_specific_agreement_for_pairs():
    by = _random_labels(np.random.default_rng(4), 50, 3)
    labels = _labels(by)
    cats = category_agreement(labels)
    matrix = confusion_matrix(labels, "a0", "a1")
    for label in matrix.index:
        expected = 2 * matrix.loc[label, label] / (matrix.loc[label].sum() + matrix[label].sum())
        got = cats[(cats["annotators"] == "a0|a1") & (cats["label"] == label)]["value"].item()
        assert got == pytest.approx(expected)
    assert set(cats["annotators"]) == {"a0|a1", "a0|a2", "a1|a2", "all"}


# ---- the intervals' coverage on simulated (SYNTHETIC) annotators ----

def test_population_kappa_matches_a_large_simulation():
    shares, accuracy = [0.4, 0.3, 0.2, 0.1], 0.6
    labels = simulate_annotators(20_000, 2, accuracy=accuracy, shares=shares, seed=1)
    table = agreement(labels, n_boot=0)
    assert _value(table, "cohen_kappa", "a0|a1")["value"] == pytest.approx(
        population_kappa(accuracy=accuracy, shares=shares), abs=0.02)


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_kappa_about_as_often_as_promised():
    shares, accuracy, reps = [0.35, 0.25, 0.15, 0.1, 0.1, 0.05], 0.65, 120
    truth = population_kappa(accuracy=accuracy, shares=shares)
    hits = {"cohen_kappa": 0, "fleiss_kappa": 0, "krippendorff_alpha": 0}
    for rep in range(reps):
        labels = simulate_annotators(176, 3, accuracy=accuracy, shares=shares, seed=1000 + rep)
        table = agreement(labels, n_boot=400, seed=rep)
        for measure in hits:
            row = table[table["measure"] == measure].iloc[0]
            hits[measure] += row["ci_low"] <= truth <= row["ci_high"]
    for measure, hit in hits.items():
        # 95% nominal; with 120 replications the Monte Carlo standard error is about 2 points
        assert 0.87 <= hit / reps <= 0.995, (measure, hit / reps)


# ---- the task (cluster) bootstrap: answers to one task are drawn together ----

SHARES = [0.33, 0.24, 0.09, 0.07, 0.06, 0.09, 0.11, 0.01]


def test_the_task_bootstrap_equals_drawing_whole_tasks_by_hand():
    from sgr_kit.stats._resample import problem_weights

    # 12 tasks with 1-4 answers each (two systems, repeats): a resample draws tasks, each with all its answers
    rng = np.random.default_rng(2)
    rows, items = [], []
    for t in range(12):
        for system in ("s1", "s2")[: 1 + t % 2]:
            for repeat in range(1 + t % 3 // 2):
                first, second = rng.choice(list(ANNOTATION_LABELS[:4]), size=2)
                items.append((system, f"t{t:02d}", repeat, first, second))
    for system, task, repeat, first, second in items:
        rows += [(system, task, repeat, "a", first), (system, task, repeat, "b", second)]
    labels = pd.DataFrame(rows, columns=["system", "task_id", "repeat", "annotator", "label"])
    table = agreement(labels, n_boot=300, seed=7, ci=0.9)
    order = sorted(items)  # the items in the table's order (system, task, repeat)
    tasks = sorted({task for _, task, *_ in order})
    weights = problem_weights(np.random.default_rng(7), len(tasks), 300)
    loop = []
    for row in weights.astype(int):
        drawn = [item for task, count in zip(tasks, row) for _ in range(count) for item in order if item[1] == task]
        loop.append(cohen_kappa_score([i[3] for i in drawn], [i[4] for i in drawn]))
    low, high = np.nanquantile(loop, [0.05, 0.95])
    assert (_value(table, "cohen_kappa", "a|b")["ci_low"], _value(table, "cohen_kappa", "a|b")["ci_high"]) == \
        pytest.approx((low, high))
    assert _value(table, "cohen_kappa", "a|b")["value"] == pytest.approx(
        cohen_kappa_score([i[3] for i in order], [i[4] for i in order]))


def test_population_kappa_with_tasks_of_different_difficulty_matches_a_large_simulation():
    labels = simulate_annotators(40_000, 2, accuracy=0.7, shares=SHARES, seed=3, tasks=4_000, spread=0.25)
    value = _value(agreement(labels, n_boot=0), "cohen_kappa", "a0|a1")["value"]
    assert value == pytest.approx(population_kappa(accuracy=0.7, shares=SHARES, spread=0.25), abs=0.01)
    assert population_kappa(accuracy=0.7, shares=SHARES, spread=0.25) > population_kappa(accuracy=0.7, shares=SHARES)


@pytest.mark.slow
def test_with_tasks_of_different_difficulty_the_task_bootstrap_covers_and_the_answer_bootstrap_does_not():
    # SYNTHETIC: 176 answers to 16 tasks (11 each), accuracy 0.45 or 0.95 by task
    truth = population_kappa(accuracy=0.7, shares=SHARES, spread=0.25)
    reps, hits = 120, {"task_id": 0, None: 0}
    for rep in range(reps):
        labels = simulate_annotators(176, 2, accuracy=0.7, shares=SHARES, seed=500 + rep, tasks=16, spread=0.25)
        for cluster in hits:
            row = _value(agreement(labels, n_boot=400, seed=rep, cluster=cluster), "cohen_kappa", "a0|a1")
            hits[cluster] += row["ci_low"] <= truth <= row["ci_high"]
    # 95% nominal; Monte Carlo standard error about 2 points at 120 replications; a bootstrap over only
    # 16 tasks runs a little short of nominal
    assert 0.85 <= hits["task_id"] / reps <= 0.995, hits
    assert hits[None] / reps < 0.75, hits  # answers taken as independent: intervals far too narrow


def test_cluster_must_be_a_task_a_system_or_none():
    labels = _labels({"a": ["correct", "scope_drift"], "b": ["correct", "correct"]})
    with pytest.raises(SgrKitError, match="cluster: expected one of 'task_id', 'system', None, found 'repeat'"):
        agreement(labels, cluster="repeat")
    by_system = agreement(labels, n_boot=50, cluster="system")  # one system: every resample is the whole sample
    assert (by_system["ci_low"] == by_system["value"]).all()


def test_simulated_tasks_number_answers_as_repeats_and_refuse_an_accuracy_off_the_scale():
    labels = simulate_annotators(10, 2, accuracy=0.8, shares=SHARES, tasks=4, spread=0.1)
    assert labels.drop_duplicates(["task_id", "repeat"]).shape[0] == 10 and labels["task_id"].nunique() == 4
    with pytest.raises(SgrKitError, match="accuracy"):
        simulate_annotators(10, 2, accuracy=0.9, shares=SHARES, tasks=4, spread=0.2)
