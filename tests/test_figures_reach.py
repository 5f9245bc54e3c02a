"""Site-reach figures: drawn from site_reach_means, marked when synthetic, saved byte-stable."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from sgr_kit import figures as F  # noqa: E402
from sgr_kit.breakdowns import site_reach_means  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402


def reach_table(rng: np.random.Generator, *, synthetic: bool) -> pd.DataFrame:
    rows = []
    for system in ("GPT-5.5", "Kimi K2.5", "GLM-5.1"):
        for p in range(10):
            for variant, suffix in (("constraint", ""), ("goal", "-g")):
                rows.append({"system": system, "task_id": f"p{p}{suffix}", "base_id": f"p{p}", "variant": variant,
                             "repeat": 0, "status": "parsed", "item_f1": rng.uniform(), "row_f1": rng.uniform(),
                             "poa": 1.0, "synthetic": synthetic})
    scores = pd.DataFrame(rows)
    reach = scores[["system", "task_id", "repeat"]].assign(reached_site=rng.uniform(size=len(scores)) < 0.6,
                                                           first_site_step=1, site_fetch_share=0.5)
    return site_reach_means(scores, reach, n_boot=200)


def test_points_sit_at_the_table_values(rng):
    table = reach_table(rng, synthetic=False)
    ax = F.plot_reach_scores(table, metric="row_f1")
    drawn = sorted(float(x) for bars in ax.containers for x in bars.lines[0].get_xdata())
    want = sorted(table.loc[table["quantity"] == "row_f1", "value"].dropna())
    assert drawn == pytest.approx(want)
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "All systems"
    assert ax.get_xlabel() == "Row-F1 (percent)"
    ax = F.plot_site_reached(table, pooled=False)
    assert len([t for t in ax.get_yticklabels()]) == 3
    plt.close("all")


def test_figure_is_marked_synthetic_and_saves_byte_stable(rng, tmp_path):
    table = reach_table(rng, synthetic=True)
    fig = F.figure_site_reach(table)
    assert fig.get_suptitle().startswith("SYNTHETIC DATA")
    assert all(any(t.get_text() == "SYNTHETIC DATA" for t in ax.texts) for ax in fig.axes)
    first = F.save_figure(fig, tmp_path / "a" / "site_reach", dpi=40)
    second = F.save_figure(fig, tmp_path / "b" / "site_reach", dpi=40)
    assert [a.read_bytes() == b.read_bytes() for a, b in zip(first, second)] == [True, True]
    plt.close("all")


def test_bad_tables_are_refused(rng):
    table = reach_table(rng, synthetic=False)
    with pytest.raises(SgrKitError, match=r"plot_site_reached: the table lacks column\(s\) quantity"):
        F.plot_site_reached(table.drop(columns="quantity"))
    with pytest.raises(SgrKitError, match=r"plot_reach_scores: no rows to draw for the metric 'poa'"):
        F.plot_reach_scores(table, metric="poa")
