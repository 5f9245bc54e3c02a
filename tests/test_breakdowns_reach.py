"""site_reach_means: values against plain pandas means, intervals against a bootstrap written out here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sgr_kit.breakdowns import REACH_COLUMNS, describe_reach, reach_scores, site_reach_means
from sgr_kit.errors import SgrKitError


def tables(rng: np.random.Generator, *, systems=("GPT-5.5", "Kimi K2.5"), problems=12, repeats=2):
    rows = []
    for system in systems:
        for p in range(problems):
            for variant, suffix in (("constraint", ""), ("goal", "-g")):
                for r in range(repeats):
                    item = float(rng.uniform())
                    status = str(rng.choice(["parsed", "parsed", "parsed", "parse_failure"]))
                    row = float(rng.choice([0.0, 0.5, 1.0]))
                    rows.append({"system": system, "task_id": f"p{p:02d}{suffix}", "base_id": f"p{p:02d}",
                                 "variant": variant, "repeat": r, "status": status,
                                 "item_f1": item if status == "parsed" else np.nan,
                                 "row_f1": row if status == "parsed" else np.nan, "poa": 1.0, "synthetic": False})
    scores = pd.DataFrame(rows)
    reach = scores[["system", "task_id", "repeat"]].assign(
        reached_site=rng.uniform(size=len(scores)) < 0.7, first_site_step=1, site_fetch_share=0.5)
    return scores, reach


def test_values_are_the_plain_means_over_answers(rng):
    scores, reach = tables(rng)
    table = site_reach_means(scores, reach, n_boot=200)
    assert list(table.columns) == list(REACH_COLUMNS)
    merged = scores.merge(reach, on=["system", "task_id", "repeat"])
    for system, part in merged.groupby("system"):
        rows = table[table["system"] == system].set_index(["quantity", "reached"])
        assert rows.loc[("site_reached", "all"), "value"] == pytest.approx(100 * part["reached_site"].mean())
        for metric in ("item_f1", "row_f1"):
            for flag, label in ((True, "yes"), (False, "no")):
                sel = part[part["reached_site"] == flag]
                assert rows.loc[(metric, label), "value"] == pytest.approx(100 * sel[metric].fillna(0).mean())
                assert rows.loc[(metric, label), "n_answers"] == len(sel)
        failed = part[part["row_f1"].isna() | (part["row_f1"] < 1)]
        assert rows.loc[("failed_reached", "all"), "value"] == pytest.approx(100 * failed["reached_site"].mean())
        assert rows.loc[("failed_reached", "all"), "n_answers"] == len(failed)
    excluded = site_reach_means(scores, reach, n_boot=200, failure_policy="exclude")
    gpt = merged[(merged["system"] == "GPT-5.5") & merged["reached_site"]]
    row = excluded[(excluded["system"] == "GPT-5.5") & (excluded["quantity"] == "item_f1")
                   & (excluded["reached"] == "yes")]
    assert row["value"].iloc[0] == pytest.approx(100 * gpt["item_f1"].mean())  # NaN left out


def test_the_share_interval_is_the_clustered_percentile_bootstrap(rng):
    scores, reach = tables(rng, systems=("GPT-5.5",))
    n_boot, seed, ci = 500, 7, 0.9
    table = site_reach_means(scores, reach, n_boot=n_boot, method="percentile", seed=seed, ci=ci)
    row = table[(table["system"] == "GPT-5.5") & (table["quantity"] == "site_reached")].iloc[0]
    # by hand: resample base problems (both variants, all repeats), ratio of sums, expanded level
    merged = scores.merge(reach, on=["system", "task_id", "repeat"])
    per = merged.groupby("base_id")["reached_site"].agg(["sum", "count"]).sort_index()
    n = len(per)
    draws = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    boot = per["sum"].to_numpy()[draws].sum(axis=1) / per["count"].to_numpy()[draws].sum(axis=1)
    level = 2 * stats.norm.cdf(np.sqrt(n / (n - 1)) * stats.t.ppf((1 + ci) / 2, n - 1)) - 1
    low, high = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((100 * low, 100 * high))
    assert row["n_problems"] == n and row["method"] == "percentile"


def test_answers_without_trajectory_are_left_out_with_a_note(rng):
    scores, reach = tables(rng)
    table = site_reach_means(scores, reach.iloc[10:], n_boot=200)
    assert table["note"].str.contains("10 scored answer\\(s\\) without a trajectory").all()
    assert set(table["system"]) == {"GPT-5.5", "Kimi K2.5", "all systems"}
    assert table["synthetic"].eq(False).all()
    assert "GPT-5.5: " in describe_reach(table, system="GPT-5.5")
    assert describe_reach(table).startswith("All systems: ")


def test_errors(rng):
    scores, reach = tables(rng)
    with pytest.raises(SgrKitError, match=r"reach lacks column\(s\) reached_site"):
        site_reach_means(scores, reach.drop(columns="reached_site"))
    with pytest.raises(SgrKitError, match=r"no answer of the scores table has a trajectory"):
        site_reach_means(scores, reach.assign(system=reach["system"] + "x"))
    with pytest.raises(SgrKitError, match=r"reach: \(system, task_id, repeat\) other, p00, 0 appears more"):
        site_reach_means(scores, reach.assign(system="other"))
    with pytest.raises(SgrKitError, match=r"failure_policy must be one of"):
        site_reach_means(scores, reach, failure_policy="drop")
    with pytest.raises(SgrKitError, match=r"describe_reach: no rows for system 'x'"):
        describe_reach(site_reach_means(scores, reach, n_boot=100), system="x")
    assert len(reach_scores(scores, reach)) == len(scores)


def test_reach_wide_lays_the_long_table_out_one_system_per_row():
    from sgr_kit.breakdowns import REACH_WIDE, reach_wide

    long = pd.DataFrame({
        "system": ["a"] * 6 + ["b"] * 2,
        "quantity": ["site_reached", "item_f1", "item_f1", "row_f1", "row_f1", "failed_reached", "site_reached",
                     "item_f1"],
        "reached": ["all", "yes", "no", "yes", "no", "all", "all", "yes"],
        "value": [80.0, 50.0, 10.0, 30.0, 0.0, 75.0, 100.0, 60.0],
        "ci_low": [70.0, 40.0, None, 20.0, None, 60.0, None, None],
        "ci_high": [90.0, 60.0, None, 40.0, None, 88.0, None, None],
        "n_answers": [10, 8, 2, 8, 2, 4, 3, 3]})
    wide = reach_wide(long)
    assert list(wide["system"]) == ["a", "b"] and list(wide["n_answers"]) == [10, 3]
    for (quantity, reached), name in REACH_WIDE.items():  # every value of the long table, in its place
        for system in ("a", "b"):
            row = long[(long["system"] == system) & (long["quantity"] == quantity) & (long["reached"] == reached)]
            got = wide.set_index("system").loc[system, [name, f"{name}_ci_low", f"{name}_ci_high"]].tolist()
            want = row[["value", "ci_low", "ci_high"]].iloc[0].tolist() if len(row) else [np.nan] * 3
            assert np.allclose(got, want, equal_nan=True), (system, name)
