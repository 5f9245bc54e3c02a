"""Tests of sgr_kit.figures: every figure is drawn, saved as a non-empty PNG, carries the synthetic mark
on synthetic data (and only there), and the save helper is byte-stable.

Images are never compared byte for byte across machines: the synthetic mark is found as a text
artist and, loosely, as red pixels in the rendered image.
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from sgr_kit import figures as F  # noqa: E402
from sgr_kit import reference, stats  # noqa: E402
from sgr_kit.errors import SgrKitError  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SYSTEMS = ["GPT-5.5", "Claude Opus 4.7", "Kimi K2.5", "my-agent"]
ERRORS = list(reference.ERROR_TYPES)


@pytest.fixture(autouse=True)
def theme():
    F.set_theme("paper")
    yield
    plt.close("all")


# ------------------------------------------------------------------ small tidy inputs, one per figure


def means(synthetic: bool, rng) -> pd.DataFrame:
    rows = []
    for system in [*SYSTEMS, "all systems"]:
        item = rng.uniform(30, 70)
        for metric, v in (("item_f1", item), ("row_f1", item - rng.uniform(5, 25))):
            rows.append(dict(system=system, variant="overall", metric=metric, value=v, ci_low=v - 5, ci_high=v + 5,
                             synthetic=synthetic))  # fmt: skip
    return pd.DataFrame(rows)


def group_means(by: str, groups, synthetic: bool, rng) -> pd.DataFrame:
    rows = []
    for system in [*SYSTEMS, "all systems"]:
        for metric in ("item_f1", "row_f1"):
            for g in groups:
                v = rng.uniform(0, 100)
                rows.append({"system": system, "variant": "overall", "metric": metric, by: g, "group_tasks": 10,
                             "value": v, "ci_low": max(v - 8, 0), "ci_high": min(v + 8, 100), "synthetic": synthetic})
    return pd.DataFrame(rows)


def profile(by: str, groups, synthetic: bool, rng) -> pd.DataFrame:
    rows = []
    for g in groups:
        counts = rng.integers(0, 6, len(ERRORS))
        failed = int(counts.sum()) or 1
        for label, count in zip([*ERRORS, "correct"], [*counts, 2]):
            share = 100 * count / failed if label != "correct" else np.nan
            rows.append({by: g, "label": label, "count": int(count), "n_failed": failed, "n_audited": failed + 2,
                         "percent_of_failures": share, "percent_of_audited": 100 * count / (failed + 2),
                         "synthetic": synthetic})  # fmt: skip
    return pd.DataFrame(rows)


def tables(synthetic: bool, rng) -> dict[str, pd.DataFrame]:
    causes = ["wrong", "missing", "omitted_row", "extra_row", "duplicate_row", "extra_cell", "failed"]
    points = []
    for system in [*SYSTEMS, "all systems"]:
        item = rng.uniform(20, 70)
        lost = rng.dirichlet(np.ones(len(causes))) * (100 - item)
        points += [dict(system=system, variant="overall", cause=c, points=p, item_f1=item, synthetic=synthetic)
                   for c, p in zip(causes, lost)]  # fmt: skip
    audit_scores = pd.DataFrame({"label": rng.choice([*ERRORS, "correct"], 60), "item_f1": rng.uniform(0, 100, 60),
                                 "synthetic": synthetic})  # fmt: skip
    audit_scores["row_f1"] = audit_scores["item_f1"] * rng.uniform(0, 1, 60)
    paired = pd.DataFrame({"system": [*SYSTEMS, "all systems"], "diff": rng.normal(0, 4, 5)})
    paired = paired.assign(ci_low=paired["diff"] - 5, ci_high=paired["diff"] + 5, p_holm=[0.01, 0.2, 0.5, 0.04, 0.3],
                           n_pairs=50, synthetic=synthetic)  # fmt: skip
    pairs = [(a, b) for i, a in enumerate(SYSTEMS) for b in SYSTEMS[i + 1:]]
    matrix = pd.DataFrame({"system_a": [a for a, _ in pairs], "system_b": [b for _, b in pairs], "n_tasks": 100,
                           "diff": rng.normal(0, 10, len(pairs)), "p": 0.01, "p_holm": 0.03})  # fmt: skip
    matrix = matrix.assign(ci_low=matrix["diff"] - 3, ci_high=matrix["diff"] + 3, synthetic=synthetic)
    return {
        "means": means(synthetic, rng),
        "families": group_means("family", ["scholarly archives", "official statistics", "regulatory resources"],
                                synthetic, rng),
        "bins": group_means("bin", ["1-2", "3-5", "6-10", "11+"], synthetic, rng),
        "profile": profile("system", [*SYSTEMS[:3], "all systems"], synthetic, rng),
        "family_profile": profile("family", ["scholarly archives", "official statistics"], synthetic, rng),
        "audit_scores": audit_scores,
        "points": pd.DataFrame(points),
        "paired": paired,
        "matrix": matrix,
    }


FIGURES = {  # figure-level helper, its input table, keyword arguments
    "item_vs_row": (F.figure_item_vs_row, "means", {}),
    "error_distribution": (F.figure_error_distribution, "profile", {}),
    "error_shares": (F.figure_error_shares, "profile", {}),
    "family_error_shares": (F.figure_error_shares, "family_profile", {}),
    "family_heatmaps": (F.figure_family_heatmaps, "families", {}),
    "family_errors": (F.figure_family_errors, "family_profile", {}),
    "family_error_counts": (F.figure_family_errors, "family_profile", {"value": "count"}),
    "error_type_scores": (F.figure_error_type_scores, "audit_scores", {}),
    "bins": (F.figure_bins, "bins", {"published": reference.cardinality()}),
    "forest": (F.figure_forest, "paired", {}),
    "system_matrix": (F.figure_system_matrix, "matrix", {}),
    "points_lost": (F.figure_points_lost, "points", {}),
}


def marks(fig: Figure) -> int:
    """Number of synthetic marks (text artists with the mark's gid) on the figure."""
    found = [t for t in fig.findobj(matplotlib.text.Text) if t.get_gid() == F.SYNTHETIC_GID]
    return sum(1 for t in found if t.get_visible() and t.get_text())


def red_pixels(path) -> int:
    """Pixels clearly red (the mark's colour, #C0392B at partial opacity): loose, never exact."""
    image = plt.imread(path)[..., :3]
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return int(((r - g > 0.15) & (r - b > 0.15) & (r > 0.6)).sum())


# ------------------------------------------------------------------ every figure


@pytest.mark.parametrize("name", list(FIGURES))
def test_figure_draws_saves_and_marks_synthetic(name, tmp_path, rng):
    make, key, kwargs = FIGURES[name]
    data = tables(True, rng)[key]
    fig = make(data, **kwargs)
    assert isinstance(fig, Figure)
    data_axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert data_axes
    # every data axes carries the mark, and the figure title says it too
    assert all(any(t.get_gid() == F.SYNTHETIC_GID for t in ax.texts) for ax in data_axes)
    assert F.SYNTHETIC_TEXT in fig.get_suptitle()
    (png,) = F.save_figure(fig, tmp_path / name, formats=("png",), dpi=40)
    assert png.read_bytes().startswith(PNG_SIGNATURE) and png.stat().st_size > 2000
    height, width = plt.imread(png).shape[:2]
    assert height > 50 and width > 50
    # the same table without the synthetic flag: no mark anywhere
    plain = make(data.assign(synthetic=False), **kwargs)
    assert marks(plain) == 0 and not plain.get_suptitle()


def test_synthetic_mark_is_visible_in_the_pixels(tmp_path, rng):
    """Loosely: the synthetic figure has many more red pixels than the same figure without the mark."""
    table = tables(True, rng)["paired"]
    (marked,) = F.save_figure(F.figure_forest(table), tmp_path / "marked", formats=("png",), dpi=50)
    (plain,) = F.save_figure(F.figure_forest(table, synthetic=False), tmp_path / "plain", formats=("png",), dpi=50)
    assert red_pixels(marked) > red_pixels(plain) + 150


def test_explicit_synthetic_argument_overrides_the_column(rng):
    table = tables(False, rng)["points"]
    assert marks(F.figure_points_lost(table, synthetic=True)) >= 1
    assert marks(F.figure_points_lost(table.assign(synthetic=True), synthetic=False)) == 0


def test_axes_level_functions_draw_into_the_given_axes(rng):
    t = tables(True, rng)
    fig, axs = plt.subplots(1, 3, figsize=(9, 3))
    calls = [(F.plot_score_heatmap, t["families"], {"metric": "row_f1", "cbar": False}),
             (F.plot_bins, t["bins"], {"system": "GPT-5.5"}), (F.plot_error_shares, t["profile"], {"sort": False})]
    for ax, (plot, table, kwargs) in zip(axs.flat, calls):
        assert plot(table, ax=ax, **kwargs) is ax
        assert any(tx.get_gid() == F.SYNTHETIC_GID for tx in ax.texts)
    assert len(fig.axes) == 3  # nothing drawn elsewhere


def test_axis_labels_carry_units(rng):
    t = tables(False, rng)
    assert F.plot_item_vs_row(t["means"]).get_ylabel() == "Item-F1 (percent points)"
    assert "percent points" in F.plot_bins(t["bins"]).get_ylabel()
    assert "percent points" in F.plot_points_lost(t["points"]).get_xlabel()
    assert "percent points" in F.plot_forest(t["paired"]).get_xlabel()
    assert "percent" in F.plot_error_shares(t["profile"]).get_xlabel()


def test_figures_take_the_stats_tables(rng):
    """The forest plot, the matrix and Figure 2a draw the tables of sgr_kit.stats as they come."""
    rows = []
    for system, skill in (("GPT-5.5", 0.7), ("my-agent", 0.5), ("other", 0.3)):
        for p in range(12):
            for variant, task in (("constraint", f"p{p}"), ("goal", f"p{p}-g")):
                item = float(np.clip(skill + rng.normal(0, 0.2), 0, 1))
                rows.append(dict(system=system, task_id=task, base_id=f"p{p}", variant=variant, status="parsed",
                                 item_f1=item, row_f1=item / 2, poa=1.0, synthetic=True))  # fmt: skip
    scores = pd.DataFrame(rows)
    paired = stats.paired_tests(scores, n_boot=100, n_perm=100)
    matrix = stats.system_matrix(scores, n_boot=100, n_perm=100)
    means = stats.bootstrap_means(scores, metrics=("item_f1", "row_f1"), n_boot=100, pooled=True)
    for fig in (F.figure_forest(paired), F.figure_system_matrix(matrix), F.figure_item_vs_row(means)):
        assert marks(fig) >= 1
    forest = F.figure_forest(paired).axes[0]
    assert [t.get_text() for t in forest.get_yticklabels()] == ["GPT-5.5", "my-agent", "other", "All systems"]


def test_points_lost_bars_add_up_to_100(rng):
    table = tables(False, rng)["points"]
    ax = F.plot_points_lost(table)
    right = {}
    for patch in ax.patches:
        y = round(patch.get_y(), 6)
        right[y] = max(right.get(y, 0.0), patch.get_x() + patch.get_width())
    assert np.allclose(list(right.values()), 100)


def test_system_matrix_is_antisymmetric(rng):
    table = tables(False, rng)["matrix"]
    ax = F.plot_system_matrix(table)
    grid = ax.collections[0].get_array().reshape(len(SYSTEMS), len(SYSTEMS))
    assert np.allclose(np.ma.filled(grid, np.nan), -np.ma.filled(grid, np.nan).T, equal_nan=True)


# ------------------------------------------------------------------ theme, errors, saving


def test_theme_sizes_and_contexts():
    assert plt.rcParams["font.size"] == 7.0 and plt.rcParams["xtick.labelsize"] == 6.5
    F.set_theme("slide", rc={"axes.grid": True})
    assert plt.rcParams["font.size"] == 16.0 and plt.rcParams["axes.grid"]
    with pytest.raises(SgrKitError, match="context must be one of 'paper', 'slide'; found 'poster'"):
        F.set_theme("poster")


def test_slide_figures_are_larger(rng):
    table = tables(False, rng)["bins"]
    paper = F.figure_bins(table).get_size_inches()
    F.set_theme("slide")
    slide = F.figure_bins(table).get_size_inches()
    assert (slide > paper).all()


@pytest.mark.parametrize(
    ("plot", "table", "match"),
    [
        (F.plot_item_vs_row, pd.DataFrame({"system": ["a"]}), r"plot_item_vs_row: the table lacks column\(s\) variant"),
        (F.plot_score_heatmap, pd.DataFrame({"system": ["a"], "variant": ["overall"], "metric": ["item_f1"],
                                             "value": [1.0]}), "expected exactly one group column"),
        (F.plot_bins, pd.DataFrame({"system": ["x"], "variant": ["overall"], "metric": ["item_f1"], "bin": ["1-2"],
                                    "value": [1.0]}), r"plot_bins: no rows to draw for system 'all systems'"),
        (F.plot_forest, [1, 2], r"plot_forest: expected a DataFrame"),
    ],
)  # fmt: skip
def test_bad_tables_are_refused(plot, table, match):
    with pytest.raises(SgrKitError, match=match):
        plot(table)


def test_family_errors_value_is_checked(rng):
    with pytest.raises(SgrKitError, match="value must be 'percent_of_failures' or 'count'; found 'share'"):
        F.plot_family_errors(tables(False, rng)["family_profile"], value="share")


def test_save_figure_is_byte_stable(tmp_path, rng):
    table = tables(True, rng)["paired"].iloc[[0, 4]]  # a small constrained-layout figure
    fig = F.figure_forest(table)
    formats = ("png", "svg", "pdf")
    first = F.save_figure(fig, tmp_path / "a" / "fig.svg", formats=formats, dpi=40)
    second = F.save_figure(fig, tmp_path / "b" / "fig", formats=formats, dpi=40)
    assert [p.name for p in first] == ["fig.png", "fig.svg", "fig.pdf"]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert first[0].read_bytes().startswith(PNG_SIGNATURE) and first[2].read_bytes().startswith(b"%PDF")
    svg = first[1].read_text(encoding="utf-8")
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg
    assert b"CreationDate" not in first[2].read_bytes()
    # an unchanged file is not rewritten
    stamp = first[0].stat().st_mtime_ns
    F.save_figure(fig, tmp_path / "a" / "fig", formats=("png",), dpi=40)
    assert first[0].stat().st_mtime_ns == stamp


def test_save_figure_errors(tmp_path):
    fig = plt.figure()
    with pytest.raises(SgrKitError, match=r"formats must be some of png, svg, pdf; found 'jpg'"):
        F.save_figure(fig, tmp_path / "x", formats=("jpg",))
    with pytest.raises(SgrKitError, match="expected a matplotlib Figure, found str"):
        F.save_figure("figure", tmp_path / "x")


# ------------------------------------------------------------------ names from data


HOSTILE_SYSTEMS = ["x" * 5000, "Agent $\\frac$ v2", "red\x1b[31m\u202eevil", "my-agent"]


@pytest.mark.parametrize("name", list(FIGURES))
def test_no_system_name_can_grow_a_figure_or_be_read_as_mathtext(name, tmp_path, rng, monkeypatch):
    """A 5,000-character name, ``$\\frac$`` and control characters: the figure draws, and stays its size."""
    function, key, kwargs = FIGURES[name]
    dpi = 60  # sizes in pixels at 60 dpi; the limit below allows twice the size plus 2/3 inch
    normal = F.save_figure(function(tables(False, rng)[key], **kwargs), tmp_path / "normal", formats=("png",), dpi=dpi)
    monkeypatch.setattr(sys.modules[__name__], "SYSTEMS", HOSTILE_SYSTEMS)
    fig = function(tables(False, rng)[key], **kwargs)
    labels = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    assert not any("\x1b" in t or "\u202e" in t or len(t) > 200 for t in labels)
    hostile = F.save_figure(fig, tmp_path / "hostile", formats=("png",), dpi=dpi)
    (h1, w1), (h2, w2) = plt.imread(normal[0]).shape[:2], plt.imread(hostile[0]).shape[:2]
    slack = 2 * dpi / 3
    assert h2 <= 2 * h1 + slack and w2 <= 2 * w1 + slack, (name, (h1, w1), (h2, w2))


def test_a_long_name_is_cut_with_an_ellipsis_and_dollars_are_shown():
    from sgr_kit.figures.theme import short_system

    assert short_system("x" * 5000) == "x" * 39 + "…"
    fig, ax = plt.subplots()
    ax.set_title(short_system("Agent $\\frac$ v2"))
    fig.canvas.draw()  # mathtext would raise a ValueError here


def test_system_matrix_scale_is_symmetric_and_a_small_gap_stays_pale():
    t = pd.DataFrame({"system_a": ["a"], "system_b": ["b"], "diff": [1.4], "p_holm": [0.3], "metric": "row_f1",
                      "variant": "overall"})
    ax = F.plot_system_matrix(t, metric="row_f1")
    (mesh,) = ax.collections
    assert mesh.norm.vmin == -mesh.norm.vmax == -10.0  # not stretched to 1.4
    assert ax.get_title() == "Row-F1 (overall)\n* Holm-adjusted p < 0.05"
    assert "row − column" in ax.figure.axes[-1].get_ylabel()  # the colour bar names the direction
    wide = t.assign(diff=23.0)
    assert F.plot_system_matrix(wide, metric="row_f1").collections[0].norm.vmax == 30.0
    plt.close("all")


def test_forest_says_why_a_row_has_no_interval_and_what_p_can_reach():
    t = pd.DataFrame({"system": ["a", "b"], "diff": [75.0, np.nan], "ci_low": [np.nan, np.nan],
                      "ci_high": [np.nan, np.nan], "p_holm": [1.0, np.nan], "p_min": [0.5, np.nan], "n_pairs": [2, 0]})
    texts = [x.get_text() for x in F.plot_forest(t).texts]
    assert "p=1.000 (p≥0.5 with 2 pairs); no interval, n=2" in texts and "no pairs" in texts
    plt.close("all")


@pytest.mark.parametrize("n_families", [2, 4, 6])
def test_the_family_heatmaps_tick_labels_never_overlap(n_families):
    from sgr_kit.figures.scores import figure_family_heatmaps
    from sgr_kit.taxonomy import FAMILIES

    rows = [dict(system=s, variant="overall", metric=m, family=f, group_tasks=18, value=55.0)
            for s in ("GPT-5.5", "Claude Opus 4.7", "Kimi K2.5") for f in FAMILIES[:n_families]
            for m in ("item_f1", "row_f1")]  # fmt: skip
    fig = figure_family_heatmaps(pd.DataFrame(rows), synthetic=False)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    heatmaps = [ax for ax in fig.axes if any(t.get_text() for t in ax.get_xticklabels())]
    assert len(heatmaps) == 2
    for ax in heatmaps:
        labels = [t for t in ax.get_xticklabels() if t.get_text()]
        assert len(labels) == n_families
        if all(t.get_rotation() == 0 for t in labels):  # level: side by side, never overlapping
            boxes = [t.get_window_extent(renderer) for t in labels]
            assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:])), n_families
        else:  # slanted at 45 degrees, one line each, neighbours further apart (across the slant) than a line is high
            assert n_families > 2 and all(t.get_rotation() == 45 and "\n" not in t.get_text() for t in labels)
            xs = [ax.transData.transform((x, 0))[0] for x in ax.get_xticks()]
            assert min(b - a for a, b in zip(xs, xs[1:])) / 2 ** 0.5 > labels[0].get_fontsize() * fig.dpi / 72
    plt.close(fig)


def test_svg_ids_do_not_depend_on_the_13th_digit_of_the_layout(tmp_path):
    # matplotlib hashes a clip rectangle's coordinates at full precision into the clip path's id: a layout that
    # differs by 1e-13 (text metrics of another machine) changed every id of an otherwise identical drawing
    def make(nudge: float, name: str) -> bytes:
        fig, ax = plt.subplots(figsize=(3, 2), layout="none")
        ax.plot([0, 1, 2], [0, 1, 0], marker="o")
        ax.errorbar([1], [0.5], yerr=[0.2], fmt="s")
        pos = ax.get_position()
        ax.set_position([pos.x0 + nudge, pos.y0, pos.width, pos.height])
        (path,) = F.save_figure(fig, tmp_path / name, formats=("svg",))
        plt.close(fig)
        return path.read_bytes()

    first, second = make(0.0, "a"), make(1e-13, "b")
    assert first == second
    import re

    assert re.search(rb'clip-path="url\(#p\d{1,3}\)"', first) and not re.search(rb'id="[a-z]+[0-9a-f]{10}"', first)
