"""Tests of sgr_kit.breakdowns: hand-computed values on small tables, error messages, invariants.

The hand computations are written beside each test. Percent points throughout.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgr_kit import reference
from sgr_kit.aggregate import system_means
from sgr_kit.breakdowns import (
    ALL_SYSTEMS, AUDIT_LABELS, AUDIT_TABLE_COLUMNS, BESIDE_COLUMNS, CAUSES, RANKING_COLUMNS, answer_losses,
    audit_scores, beside_paper, bin_means, domain_means, ecosystem_means, error_profile_by_family,
    error_profile_by_system, error_type_means, family_means, group_columns, key_mismatches, load_audit,
    paper_ranking, points_lost, rows_lost, wrong_columns,
)  # fmt: skip
from sgr_kit.errors import SgrKitError
from conftest import examples

DEMO_AUDIT = Path(__file__).resolve().parents[1] / "data" / "demo" / "audit.csv"
N_BOOT = 200

# ---------------------------------------------------------------------------------------------
# A small scores table: systems a and b, four base problems, both variants (8 tasks each).
#   p1: bin 1-2, scholarly archives   p2: bin 1-2, official statistics
#   p3: bin 3-5, scholarly archives   p4: bin 3-5, official statistics
# Item-F1 (constraint / goal):   a: p1 .5/.7  p2 1.0/.4  p3 .9/.9  p4 .3/.1
#                                b: p1 .2/--  p2 .6/.8   p3 .0/1.0 p4 .5/.5   (-- = missing answer)
# ---------------------------------------------------------------------------------------------
_PROBLEMS = {
    "p1": ("1-2", "scholarly archives", "arXiv", "ARXIV"),
    "p2": ("1-2", "official statistics", "Census.gov", "CENSUS_GOV"),
    "p3": ("3-5", "scholarly archives", "arXiv", "ARXIV"),
    "p4": ("3-5", "official statistics", "CDC WONDER", "CDC_WONDER"),
}
_ITEM = {"a": [0.5, 0.7, 1.0, 0.4, 0.9, 0.9, 0.3, 0.1], "b": [0.2, np.nan, 0.6, 0.8, 0.0, 1.0, 0.5, 0.5]}
_ROW = {"a": [0.0, 0.5, 1.0, 0.0, 0.5, 0.5, 0.0, 0.0], "b": [0.0, np.nan, 0.5, 0.5, 0.0, 1.0, 0.0, 0.0]}


def small_scores(*, synthetic: bool = False) -> pd.DataFrame:
    rows = []
    for system in ("a", "b"):
        k = 0
        for base, (bin_, family, ecosystem, domain) in _PROBLEMS.items():
            for variant, task_id in (("constraint", base), ("goal", f"{base}-g")):
                item, row = _ITEM[system][k], _ROW[system][k]
                rows.append(dict(system=system, task_id=task_id, base_id=base, variant=variant, domain=domain,
                                 ecosystem=ecosystem, family=family, bin=bin_, repeat=0,
                                 status="missing" if np.isnan(item) else "parsed", item_f1=item, row_f1=row,
                                 poa=0.0 if np.isnan(item) else 1.0, synthetic=synthetic))  # fmt: skip
                k += 1
    return pd.DataFrame(rows)


def value(table: pd.DataFrame, **where) -> pd.Series:
    mask = np.ones(len(table), dtype=bool)
    for column, wanted in where.items():
        mask &= table[column].to_numpy() == wanted
    assert mask.sum() == 1, where
    return table[mask].iloc[0]


# ----------------------------------------------------------------------------- group means


def test_bin_means_by_hand():
    m = bin_means(small_scores(), n_boot=N_BOOT)
    assert tuple(m.columns) == group_columns("bin")
    # a, bin 1-2, overall: (50 + 70 + 100 + 40) / 4 = 65; bin 3-5: (90 + 90 + 30 + 10) / 4 = 55
    assert value(m, system="a", variant="overall", metric="item_f1", bin="1-2")["value"] == pytest.approx(65)
    assert value(m, system="a", variant="overall", metric="item_f1", bin="3-5")["value"] == pytest.approx(55)
    # b's missing answer counts 0 (policy zero): (20 + 0 + 60 + 80) / 4 = 40
    b = value(m, system="b", variant="overall", metric="item_f1", bin="1-2")
    assert (b["value"], b["n_tasks"], b["group_tasks"]) == (pytest.approx(40), 4, 4)
    # all systems, bin 1-2: per problem the systems' means, then the problems:
    # p1 (60 + 10) / 2 = 35, p2 (70 + 70) / 2 = 70 -> 52.5; every system's tasks counted: 8
    pooled = value(m, system=ALL_SYSTEMS, variant="overall", metric="item_f1", bin="1-2")
    assert (pooled["value"], pooled["n_tasks"], pooled["n_problems"]) == (pytest.approx(52.5), 8, 2)
    # Row-F1, a, constraint, bin 1-2: (0 + 100) / 2 = 50
    assert value(m, system="a", variant="constraint", metric="row_f1", bin="1-2")["value"] == pytest.approx(50)
    # two problems per bin are too few for an interval: none is drawn, and the note says so
    assert m["ci_low"].isna().all() and m["ci_high"].isna().all()
    assert m["note"].str.contains("2 base problem\\(s\\): no interval drawn").all()
    assert not m["synthetic"].any()


def test_bin_means_exclude_policy():
    m = bin_means(small_scores(), failure_policy="exclude", n_boot=N_BOOT)
    # b without its missing answer: (20 + 60 + 80) / 3
    b = value(m, system="b", variant="overall", metric="item_f1", bin="1-2")
    assert (b["value"], b["n_tasks"]) == (pytest.approx(160 / 3), 3)
    # all systems: p1 (60 + 20) / 2 = 40, p2 70 -> 55
    assert value(m, system=ALL_SYSTEMS, variant="overall", metric="item_f1", bin="1-2")["value"] == pytest.approx(55)


def test_bin_order_and_rows():
    s = small_scores()
    m = bin_means(s.iloc[::-1], n_boot=N_BOOT)
    assert list(pd.unique(m["system"])) == ["b", "a", ALL_SYSTEMS]  # systems not in the paper: input order
    assert list(pd.unique(m["bin"])) == ["1-2", "3-5"]
    # 3 systems x 3 variants x 2 metrics x 2 bins
    assert len(m) == 36


def test_family_means_by_hand():
    m = family_means(small_scores(synthetic=True), metrics="item_f1", n_boot=N_BOOT)
    assert tuple(m.columns) == group_columns("family")
    # families in the order of section 3.3: scholarly archives before official statistics
    assert list(pd.unique(m["family"])) == ["scholarly archives", "official statistics"]
    # a, scholarly (p1, p3): (50 + 70 + 90 + 90) / 4 = 75; b: (20 + 0 + 0 + 100) / 4 = 30
    assert value(m, system="a", variant="overall", family="scholarly archives")["value"] == pytest.approx(75)
    assert value(m, system="b", variant="overall", family="scholarly archives")["value"] == pytest.approx(30)
    # all systems: p1 (60 + 10) / 2 = 35, p3 (90 + 50) / 2 = 70 -> 52.5
    pooled = value(m, system=ALL_SYSTEMS, variant="overall", family="scholarly archives")
    assert pooled["value"] == pytest.approx(52.5)
    assert value(m, system="a", variant="goal", family="official statistics")["n_tasks"] == 2
    assert m["synthetic"].all()


def test_ecosystem_and_domain_means():
    s = small_scores()
    e = ecosystem_means(s, metrics="item_f1", n_boot=N_BOOT)
    assert tuple(e.columns) == group_columns("ecosystem")
    assert list(pd.unique(e["ecosystem"])) == ["arXiv", "CDC WONDER", "Census.gov"]  # alphabetical, any case
    # a, arXiv = the scholarly problems: 75
    assert value(e, system="a", variant="overall", ecosystem="arXiv")["value"] == pytest.approx(75)
    d = domain_means(s, metrics="row_f1", n_boot=N_BOOT)
    # a, CENSUS_GOV (p2): Row-F1 (100 + 0) / 2 = 50
    assert value(d, system="a", variant="overall", domain="CENSUS_GOV")["value"] == pytest.approx(50)


def test_group_means_errors():
    with pytest.raises(SgrKitError, match=r"scores lacks column\(s\) bin"):
        bin_means(small_scores().drop(columns="bin"))
    with pytest.raises(SgrKitError, match="metric must be one of"):
        family_means(small_scores(), metrics="f1")
    with pytest.raises(SgrKitError, match="expected a pandas DataFrame"):
        bin_means([1, 2, 3])


# ----------------------------------------------------------------------------- audit


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_load_audit_reads_and_normalises(tmp_path):
    text = "system,task_id,label\nm,t1,Retrieval-Scope Drift\nm,t2, CORRECT \nn,t1,final_answer\n"
    f = write(tmp_path / "a.csv", text)
    a = load_audit(f)
    assert tuple(a.columns) == AUDIT_TABLE_COLUMNS
    assert a["label"].tolist() == ["scope_drift", "correct", "final_answer"]
    assert a["line"].tolist() == [2, 3, 4]
    assert a["family"].isna().all() and not a["synthetic"].any()
    assert load_audit(f, synthetic=True)["synthetic"].all()


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("system,task,label\nm,t1,correct\n", r"a\.csv:1: audit file lacks column\(s\) 'task_id'"),
        ("system,task_id,label\nm,t1,typo\n", r"a\.csv:2, column 'label': unknown label 'typo'; expected one of"),
        ("system,task_id,label\nm,t1,correct\nm,t2,correct\nm,t1,scope_drift\n",
         r"a\.csv:4: duplicate \(system, task_id\) \('m', 't1'\); first labelled at line 2"),
        ("system,task_id,label\nm,,correct\n", r"a\.csv:2, column 'task_id': empty"),
        ("system,task_id,label\nm,t1,correct,extra\n", r"a\.csv:2: expected 3 fields as in the header, found 4"),
        ("system,task_id,label\n", r"expected at least one labelled trajectory"),
        ("system,task_id,label,synthetic\nm,t1,correct,maybe\n",
         r"a\.csv:2, column 'synthetic': expected true or false"),
    ],
)  # fmt: skip
def test_load_audit_errors(tmp_path, text, match):
    with pytest.raises(SgrKitError, match=match):
        load_audit(write(tmp_path / "a.csv", text))


def test_load_audit_missing_file(tmp_path):
    with pytest.raises(SgrKitError, match=r"audit file .*nope\.csv not found"):
        load_audit(tmp_path / "nope.csv")


def test_load_audit_against_scores(tmp_path):
    s = small_scores()
    ok = load_audit(write(tmp_path / "a.csv", "system,task_id,label\na,p1,scope_drift\nb,p2-g,correct\n"), scores=s)
    # family and base_id come from the scores table
    assert ok["family"].tolist() == ["scholarly archives", "official statistics"]
    assert ok["base_id"].tolist() == ["p1", "p2"]
    with pytest.raises(SgrKitError, match=r"a\.csv:3, column 'task_id': unknown task id 'p9'"):
        load_audit(write(tmp_path / "a.csv", "system,task_id,label\na,p1,correct\na,p9,correct\n"), scores=s)
    with pytest.raises(SgrKitError, match=r"a\.csv:2, column 'system': unknown system 'z'"):
        load_audit(write(tmp_path / "a.csv", "system,task_id,label\nz,p1,correct\n"), scores=s)
    with pytest.raises(SgrKitError, match=r"a\.csv:2, column 'family': 'regulatory resources' disagrees"):
        load_audit(write(tmp_path / "a.csv", "system,task_id,family,label\na,p1,regulatory resources,correct\n"),
                   scores=s)  # fmt: skip



def test_load_audit_names_every_row_that_disagrees_with_the_scores(tmp_path):
    text = ("system,task_id,family,label\na,p1,,correct\nz,p1,,correct\na,p9,,scope_drift\nb,p2-g,,correct\n"
            "a,p2,regulatory resources,correct\nNoSuchBot,p1,,final_answer\n")
    with pytest.raises(SgrKitError) as caught:
        load_audit(write(tmp_path / "a.csv", text), scores=small_scores())
    message = str(caught.value)
    assert "4 rows disagree with the scores table" in message
    for expected in (r"a.csv:3, column 'system': unknown system 'z'", r"a.csv:4, column 'task_id': unknown task id 'p9'",
                     r"a.csv:6, column 'family': 'regulatory resources' disagrees",
                     r"a.csv:7, column 'system': unknown system 'NoSuchBot'"):
        assert expected in message

def test_demo_audit_reproduces_tables_4_and_5():
    # data/demo/README.md: the demo's labels reproduce the counts of Tables 4 and 5 exactly.
    a = load_audit(DEMO_AUDIT)
    assert len(a) == 176 and set(a["label"]) <= set(AUDIT_LABELS)
    profile = error_profile_by_system(a).set_index(["system", "label"])
    t4 = reference.table4()
    for r in t4[t4["role"] == "count"].itertuples():
        assert profile.loc[(r.system, r.error_type), "count"] == r.value, (r.system, r.error_type)
    assert profile.loc[(ALL_SYSTEMS, "scope_drift"), "n_failed"] == 156
    # Finding 2: scope drift 37.2 %, criterion mismatch 27.6 % of the 156 failures
    assert profile.loc[(ALL_SYSTEMS, "scope_drift"), "percent_of_failures"] == pytest.approx(37.18, abs=0.01)
    assert profile.loc[(ALL_SYSTEMS, "criterion_mismatch"), "percent_of_failures"] == pytest.approx(27.56, abs=0.01)
    families = error_profile_by_family(a).set_index(["family", "label"])
    for r in reference.table5().query("role == 'count'").itertuples():
        assert families.loc[(r.family, r.error_type), "count"] == r.value


def test_error_profile_by_hand():
    a = pd.DataFrame({"system": ["m", "m", "m", "m", "n"], "task_id": ["t1", "t2", "t3", "t4", "t1"],
                      "family": ["scholarly archives"] * 3 + ["official statistics"] * 2,
                      "label": ["scope_drift", "scope_drift", "criterion_mismatch", "correct", "correct"]})  # fmt: skip
    p = error_profile_by_system(a)
    assert list(p.columns) == ["system", "label", "count", "n_failed", "n_audited", "percent_of_failures",
                               "percent_of_audited", "synthetic"]  # fmt: skip
    assert len(p) == 3 * len(AUDIT_LABELS)  # m, n, all systems; zero counts kept
    m = p[p["system"] == "m"].set_index("label")
    # m: 3 failures of 4 audited; scope drift 2/3, criterion mismatch 1/3 of the failures
    assert m.loc["scope_drift", "percent_of_failures"] == pytest.approx(200 / 3)
    assert m.loc["scope_drift", "percent_of_audited"] == pytest.approx(50)
    assert math.isnan(m.loc["correct", "percent_of_failures"])
    n = p[p["system"] == "n"].set_index("label")
    assert n["n_failed"].iloc[0] == 0 and n["percent_of_failures"].isna().all()  # no failure: no share
    f = error_profile_by_family(a).set_index(["family", "label"])
    # scholarly archives (t1-t3 of m): scope drift 2, criterion mismatch 1 of 3 failures
    assert f.loc[("scholarly archives", "criterion_mismatch"), "count"] == 1
    assert f.loc[("scholarly archives", "criterion_mismatch"), "percent_of_failures"] == pytest.approx(100 / 3)
    assert f.loc[("official statistics", "correct"), ["count", "n_failed"]].tolist() == [2, 0]
    with pytest.raises(SgrKitError, match="no family for"):
        error_profile_by_family(a.assign(family=None))
    with pytest.raises(SgrKitError, match=r"audit: unknown label\(s\) 'oops'"):
        error_profile_by_system(a.assign(label="oops"))


def test_error_type_means_by_hand():
    s = small_scores()
    a = pd.DataFrame({"system": ["a", "b", "a", "b"], "task_id": ["p1", "p1", "p2", "p1-g"],
                      "label": ["criterion_mismatch", "criterion_mismatch", "correct",
                                "intent_rewriting"]})  # fmt: skip
    scored = audit_scores(a, s)
    assert list(scored.columns) == ["system", "task_id", "family", "label", "item_f1", "row_f1", "failed", "synthetic"]
    assert scored["failed"].tolist() == [False, False, False, True]
    m = error_type_means(a, s).set_index(["label", "metric"])
    # criterion mismatch: a/p1 (50, 0) and b/p1 (20, 0): Item-F1 35, Row-F1 0, gap 35
    assert m.loc[("criterion_mismatch", "item_f1"), "value"] == pytest.approx(35)
    assert m.loc[("criterion_mismatch", "gap"), "value"] == pytest.approx(35)
    assert m.loc[("criterion_mismatch", "item_f1"), "n"] == 2
    # intent rewriting: b's missing answer counts 0 under "zero" and drops out under "exclude"
    assert m.loc[("intent_rewriting", "item_f1"), "value"] == 0
    excluded = error_type_means(a, s, failure_policy="exclude").set_index(["label", "metric"])
    assert excluded.loc[("intent_rewriting", "item_f1"), "n"] == 0
    with pytest.raises(SgrKitError, match=r"the scores table has no answer of 'a' to task 'zz'"):
        audit_scores(pd.DataFrame({"system": ["a"], "task_id": ["zz"], "label": ["correct"]}), s)


# ----------------------------------------------------------------------------- where the points went


def cells_for(system, task_id, repeat, rows, *, columns=("id", "n", "s")):
    """Cell records from rows ``(verdict, pred_row, gold_row, canonical values, reference values)``."""
    out = []
    for verdict, pred_row, gold_row, canonical, ref in rows:
        for j, column in enumerate(columns):
            out.append(dict(system=system, task_id=task_id, repeat=repeat, pred_row=pred_row, gold_row=gold_row,
                            column=column, raw=None if canonical is None else canonical[j],
                            canonical=None if canonical is None else canonical[j],
                            reference=None if ref is None else ref[j], verdict=verdict))  # fmt: skip
    return out


def answer_row(system, task_id, repeat, variant, status, c, n_gold, n_pred):
    f1 = np.nan if status in ("parse_failure", "missing") else 2 * c / (n_gold + n_pred)
    return dict(system=system, task_id=task_id, repeat=repeat, variant=variant, status=status, item_f1=f1,
                row_f1=0.0, poa=0.0, correct_fields=c, gold_fields=n_gold, pred_fields=n_pred)  # fmt: skip


def example_tables():
    """Task t (3 x 3 reference): repeat 0 gets row 0 right, one wrong field in row 1 and row 2 under another
    key (omitted + extra); repeat 1 is a parse failure. Task u (2 rows) has no answer.

    Repeat 0: C = 5, N_gold = 9, N_pred = 9, Item-F1 = 10/18.
    """
    ref = [("A", "1", "x"), ("B", "2", "y"), ("C", "3", "z")]
    verdict_rows = [
        ("match", 0, 0, ref[0], ref[0]),
        ("match", 1, 1, ("B", "9", "y"), ref[1]),  # fixed below: one wrong cell
        ("extra_row", 2, None, ("C2", "3", "z"), None),
        ("omitted_row", None, 2, None, ref[2]),
    ]
    cells = pd.DataFrame(cells_for("m", "t", 0, verdict_rows))
    cells.loc[(cells["pred_row"] == 1) & (cells["column"] == "n"), "verdict"] = "wrong"
    cells = pd.concat([cells, pd.DataFrame(cells_for("m", "t", 1, [("omitted_row", None, g, None, r)
                                                                    for g, r in enumerate(ref)]))])  # fmt: skip
    cells = cells.astype({"pred_row": "Int64", "gold_row": "Int64"}).reset_index(drop=True)
    scores = pd.DataFrame([
        answer_row("m", "t", 0, "constraint", "parsed", 5, 9, 9),
        answer_row("m", "t", 1, "constraint", "parse_failure", 0, 9, 0),
        answer_row("m", "u", 0, "goal", "missing", 0, 6, 0),
    ])  # fmt: skip
    return cells, scores


def test_answer_losses_by_hand():
    cells, scores = example_tables()
    losses = answer_losses(cells, scores)
    assert list(losses.columns) == ["system", "task_id", "repeat", "variant", "status", "item_f1", "cause", "points",
                                    "synthetic"]  # fmt: skip
    assert len(losses) == 3 * len(CAUSES)
    first = losses[losses["repeat"].eq(0) & losses["task_id"].eq("t")].set_index("cause")["points"]
    # D = 18: a wrong cell loses 2/18, the omitted row 3/18, the extra row 3/18
    assert first["wrong"] == pytest.approx(200 / 18)
    assert first["omitted_row"] == pytest.approx(300 / 18)
    assert first["extra_row"] == pytest.approx(300 / 18)
    assert first[["missing", "duplicate_row", "extra_cell", "failed"]].eq(0).all()
    assert first.sum() + 100 * 10 / 18 == pytest.approx(100, abs=1e-12)
    failed = losses[losses["status"].isin(["parse_failure", "missing"])]
    assert failed.groupby(["task_id", "repeat"])["points"].sum().eq(100).all()
    assert failed.loc[failed["cause"] == "failed", "points"].eq(100).all()
    # exclude: only the parsed answer is left
    assert answer_losses(cells, scores, failure_policy="exclude")["status"].unique().tolist() == ["parsed"]


def test_points_lost_averages_like_the_scores():
    cells, scores = example_tables()
    p = points_lost(cells, scores)
    assert list(p.columns) == ["system", "variant", "cause", "points", "percent_of_gap", "item_f1", "gap", "n_tasks",
                               "synthetic"]  # fmt: skip
    overall = p[(p["system"] == "m") & (p["variant"] == "overall")].set_index("cause")
    # task t: repeats (10/18 and 0) average to 5/18 -> 27.78 points; task u: 0. Mean Item-F1 = 13.89.
    assert overall["item_f1"].iloc[0] == pytest.approx(100 * 5 / 36)
    # failed: t loses 50 (one of two repeats), u loses 100 -> 75
    assert overall.loc["failed", "points"] == pytest.approx(75)
    assert overall.loc["wrong", "points"] == pytest.approx(200 / 18 / 4)
    assert overall["points"].sum() + overall["item_f1"].iloc[0] == pytest.approx(100, abs=1e-9)
    assert overall["percent_of_gap"].sum() == pytest.approx(100)
    # the mean Item-F1 is system_means' under both policies
    for policy in ("zero", "exclude"):
        mine = points_lost(cells, scores, failure_policy=policy)
        ref = system_means(scores, failure_policy=policy).query("metric == 'item_f1'")
        for r in ref.itertuples():
            got = mine[(mine["system"] == r.system) & (mine["variant"] == r.variant)]
            if np.isnan(r.value):  # no task left (exclude): no row
                assert got.empty
                continue
            assert got["item_f1"].iloc[0] == pytest.approx(r.value)
            assert got["points"].sum() == pytest.approx(100 - r.value)


def test_points_lost_rejects_foreign_cells():
    cells, scores = example_tables()
    with pytest.raises(SgrKitError, match=r"cells disagree with the scores table for answer .*'m', 't', 0.*C_item=5"):
        answer_losses(cells, scores.assign(correct_fields=[4, 0, 0], item_f1=[8 / 18, np.nan, np.nan]))
    with pytest.raises(SgrKitError, match=r"have records but no row in the scores table"):
        answer_losses(cells, scores[scores["task_id"] == "u"])
    with pytest.raises(SgrKitError, match=r"cells: unknown verdict\(s\) 'bogus'"):
        answer_losses(cells.assign(verdict="bogus"), scores)
    with pytest.raises(SgrKitError, match=r"item_f1 of answer .* but its counts give"):
        answer_losses(cells, scores.assign(item_f1=[0.9, np.nan, np.nan]))
    with pytest.raises(SgrKitError, match=r"cells lacks column\(s\) verdict"):
        answer_losses(cells.drop(columns="verdict"), scores)


@settings(max_examples=examples(10))
@given(
    st.lists(
        st.tuples(*[st.integers(0, 6) for _ in range(7)]).filter(lambda c: c[0] + c[1] + c[2] + c[5] > 0),
        min_size=1, max_size=5,
    )
)  # fmt: skip
def test_decomposition_is_exact(counts):
    """For any verdict counts (match, wrong, missing, extra_row, duplicate_row, omitted_row, extra_cell),
    the causes add up to 100 - Item-F1 (the answers are scored as one table, so one call checks them all)."""
    verdicts = ("match", "wrong", "missing", "extra_row", "duplicate_row", "omitted_row", "extra_cell")
    records, answers = [], []
    for i, row in enumerate(counts):
        task = f"t{i}"
        for verdict, n in zip(verdicts, row):
            records += [dict(system="m", task_id=task, repeat=0, pred_row=pd.NA, gold_row=pd.NA, column="c",
                             raw=None, canonical=None, reference=None, verdict=verdict)] * n  # fmt: skip
        match, wrong, missing, extra, duplicate, omitted, extra_cell = row
        gold = match + wrong + missing + omitted
        pred = match + wrong + missing + extra + duplicate + extra_cell
        answers.append(answer_row("m", task, 0, "goal", "parsed", match, gold, pred))
    cells, scores = pd.DataFrame(records), pd.DataFrame(answers)
    losses = answer_losses(cells, scores)
    per_answer = losses.groupby("task_id").agg(points=("points", "sum"), item_f1=("item_f1", "first"))
    assert np.allclose(per_answer["points"] + per_answer["item_f1"], 100, atol=1e-9)
    assert np.allclose(per_answer["item_f1"], 100 * scores.set_index("task_id")["item_f1"].reindex(per_answer.index))


def test_losses_do_not_depend_on_record_order(rng):
    cells, scores = example_tables()
    shuffled = cells.iloc[rng.permutation(len(cells))]
    pd.testing.assert_frame_equal(answer_losses(cells, scores), answer_losses(shuffled, scores))
    pd.testing.assert_frame_equal(points_lost(cells, scores), points_lost(shuffled, scores))


def test_wrong_columns_by_hand():
    cells, scores = example_tables()
    w = wrong_columns(cells, scores)
    assert list(w.columns) == ["task_id", "variant", "column", "n_cells", "n_match", "n_wrong", "n_missing",
                               "percent_wrong", "n_systems_wrong", "rank", "synthetic"]  # fmt: skip
    # task t: credited rows 0 and 1 of repeat 0; column n is wrong once in 2 cells
    top = w.iloc[0]
    assert (top["task_id"], top["column"], top["n_cells"], top["n_wrong"], top["rank"]) == ("t", "n", 2, 1, 1)
    assert top["percent_wrong"] == pytest.approx(50)
    assert w["rank"].tolist() == [1, 2, 3]
    assert len(wrong_columns(cells, scores, top=1)) == 1
    with pytest.raises(SgrKitError, match="top must be a positive whole number"):
        wrong_columns(cells, scores, top=0)


def key_mismatch_tables():
    """Reference g0 = (K1, 5, x), g1 = (K2, 7, y) both omitted; extra rows p0 = (k-2, 7, y) agrees with g1 on
    2 of 3 columns, p1 = (k-1, 5, z) agrees with g0 on 1, p2 = (Q, 1, q) on none."""
    g0, g1 = ("K1", "5", "x"), ("K2", "7", "y")
    rows = [("omitted_row", None, 0, None, g0), ("omitted_row", None, 1, None, g1),
            ("extra_row", 0, None, ("k-2", "7", "y"), None), ("extra_row", 1, None, ("k-1", "5", "z"), None),
            ("extra_row", 2, None, ("Q", "1", "q"), None)]  # fmt: skip
    cells = pd.DataFrame(cells_for("m", "t", 0, rows)).astype({"pred_row": "Int64", "gold_row": "Int64"})
    scores = pd.DataFrame([answer_row("m", "t", 0, "goal", "parsed", 0, 6, 9)])
    return cells, scores


def test_key_mismatches_by_hand():
    cells, scores = key_mismatch_tables()
    k = key_mismatches(cells, scores)
    assert list(k.columns) == ["system", "task_id", "repeat", "variant", "gold_row", "pred_row", "n_columns",
                               "n_agree", "differing_columns", "differences", "synthetic"]  # fmt: skip
    # default min_share 0.5: only (g1, p0), agreeing on 2 of 3 columns; the key column differs
    assert k[["gold_row", "pred_row", "n_agree", "differing_columns"]].values.tolist() == [[1, 0, 2, "id"]]
    assert k["differences"].iloc[0].startswith("id: 'K2' written as ")
    # min_share 0: greedy best-first pairing, one-to-one: (g1, p0) then (g0, p1)
    loose = key_mismatches(cells, scores, min_share=0)
    assert loose[["gold_row", "pred_row", "n_agree"]].values.tolist() == [[0, 1, 1], [1, 0, 2]]
    assert loose.loc[0, "differing_columns"] == "id; s"
    lost = rows_lost(cells, scores)
    assert lost.loc[lost["variant"] == "overall", ["omitted_rows", "extra_rows", "key_mismatch_rows"]].values.tolist() \
        == [[2, 3, 1], [2, 3, 1]]  # m and all systems
    assert lost["percent_key_mismatch"].dropna().eq(50).all()
    with pytest.raises(SgrKitError, match=r"min_share must be a number in \[0, 1\]"):
        key_mismatches(cells, scores, min_share=2)


# ----------------------------------------------------------------------------- beside the paper


def full_scores(system: str, constraint: float, goal: float, *, tasks: int = 100) -> pd.DataFrame:
    """``tasks`` tasks (half per variant) of one system with constant scores."""
    rows = []
    for i in range(tasks // 2):
        for variant, task_id, item in (("constraint", f"x_{i:03d}", constraint), ("goal", f"x_{i:03d}-g", goal)):
            rows.append(dict(system=system, task_id=task_id, base_id=f"x_{i:03d}", variant=variant,
                             family="scholarly archives", bin="3-5", status="parsed", item_f1=item, row_f1=0.2,
                             poa=0.5, synthetic=False))  # fmt: skip
    return pd.DataFrame(rows)


def test_beside_paper_table2_and_flags():
    # GPT-5.5 on all 100 tasks with Table 2's variant means (68.22, 64.15): overall 66.185 vs printed 66.18
    s = pd.concat([full_scores("GPT-5.5", 0.6822, 0.6415), full_scores("Claude Opus 4.7", 0.5, 0.5, tasks=20),
                   full_scores("mine", 0.9, 0.9)])  # fmt: skip
    b = beside_paper(s)
    assert tuple(b.columns) == BESIDE_COLUMNS
    assert "mine" not in set(b["system"])  # no published counterpart
    gpt = value(b, artefact="table2", system="GPT-5.5", group="overall", quantity="item_f1")
    assert (gpt["computed"], gpt["published"], gpt["n_tasks"], gpt["complete"]) == (pytest.approx(66.185), 66.18,
                                                                                   100, True)  # fmt: skip
    assert gpt["difference"] == pytest.approx(0.005)
    claude = value(b, artefact="table2", system="Claude Opus 4.7", group="overall", quantity="item_f1")
    assert (claude["n_tasks"], claude["complete"]) == (20, False)  # scored on 20 of 100 tasks: flagged
    assert value(b, artefact="table3", system="GPT-5.5", quantity="row_f1")["computed"] == pytest.approx(20)
    # pooled rows come from the paper's systems present only (not "mine"), and are incomplete here
    fam = value(b, artefact="family_item_f1", group="scholarly archives")
    assert (fam["n_systems"], fam["complete"]) == (2, False)
    assert value(b, artefact="cardinality", group="3-5", quantity="tasks")["computed"] == 100


def test_beside_paper_audit_rows():
    s = full_scores("GPT-5.5", 0.6822, 0.6415)
    audit = pd.DataFrame({"system": "GPT-5.5", "task_id": ["x_000", "x_001", "x_002"],
                          "family": "scholarly archives",
                          "label": ["scope_drift", "scope_drift", "correct"]})  # fmt: skip
    b = beside_paper(s, audit=audit)
    drift = value(b, artefact="table4", system="GPT-5.5", label="scope_drift")
    assert (drift["computed"], drift["published"], drift["n_tasks"], drift["complete"]) == (2, 5, 3, False)
    assert value(b, artefact="table4", system="GPT-5.5", label="fail")["computed"] == 2
    assert value(b, artefact="table6", label="correct", quantity="item_f1")["computed"] == pytest.approx(68.22)
    assert value(b, artefact="table5", group="scholarly archives", label="total")["computed"] == 2


def test_paper_ranking_places_each_computed_system_among_the_papers_only():
    # four systems above every published value: each would stand 1st among the paper's systems
    # (the other computed systems are not counted: the rank reads on the paper's scale of 1 to 12)
    s = pd.concat([full_scores("a", 0.90, 0.90), full_scores("b", 0.80, 0.80), full_scores("c", 0.80, 0.80),
                   full_scores("d", 0.30, 0.30)])  # fmt: skip
    computed = paper_ranking(s).query("source == 'computed'").set_index("system")
    published = paper_ranking(s).query("source == 'paper'").set_index("system")["item_f1"]
    assert computed["rank"].to_dict() == {"a": 1, "b": 1, "c": 1, "d": int((published > 30.0).sum()) + 1}
    assert computed.loc["a", "place"].startswith("1st of 12 in the paper's ranking: above GPT-5.5")


def test_paper_ranking():
    s = pd.concat([full_scores("mine", 0.65, 0.65, tasks=10), full_scores("GLM-5.1", 0.66, 0.66),
                   full_scores("GPT-5.5", 0.70, 0.70)])  # fmt: skip
    r = paper_ranking(s)
    assert tuple(r.columns) == RANKING_COLUMNS
    computed = r[r["source"] == "computed"].set_index("system")
    # mine (65.0) is below the published GPT-5.5 (66.18) and GLM-5.1 (65.64): 3rd among the paper's systems
    # (the computed ones are not counted); a paper system does not count its own published value
    assert computed.loc["mine", "rank"] == 3 and not computed.loc["mine", "complete"]
    assert computed.loc["GPT-5.5", "rank"] == 1
    assert computed.loc["GLM-5.1", "rank"] == 2  # 66.0: only the published 66.18 above it
    assert computed.loc["GLM-5.1", "place"] == ("2nd of 11 in the paper's ranking: below GPT-5.5 (66.18), "
                                                "above Claude Opus 4.7 (61.38)")
    paper = r[r["source"] == "paper"]
    assert len(paper) == 11 and paper["rank"].tolist() == list(range(1, 12))
    assert r["item_f1"].is_monotonic_decreasing
