"""The notebooks' helper (sgr_kit.report.notebook): each table and figure shown once, sections that say why."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import IPython.display  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from conftest import examples  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sgr_kit.errors import InsufficientDataError, SgrKitError  # noqa: E402
from sgr_kit.report.notebook import Notebook, display_table  # noqa: E402


@pytest.fixture
def shown(monkeypatch):
    """Everything the helper displays, in order."""
    items = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: items.extend(objs))
    return items


class RealInputs:
    """What Notebook reads of its inputs when saving: whether they are synthetic."""

    synthetic = False


def test_a_table_is_shown_once_and_the_helper_returns_nothing(shown, tmp_path):
    nb = Notebook(RealInputs(), pd.DataFrame(), None, None, None, ("png",), tmp_path)
    frame = pd.DataFrame({"system": ["a"], "item_f1": [47.391], "p_holm": [0.0004], "n_pairs": [50],
                          "note": ["x"]})
    assert nb.table(frame, "t", caption="A table", show=["system", "item_f1", "p_holm"]) is None
    styled = [o for o in shown if hasattr(o, "to_html")]
    assert len(styled) == 1
    html = styled[0].to_html()
    assert "47.39" in html and "&lt;0.001" in html and "n_pairs" not in html  # shown columns only
    saved = pd.read_csv(tmp_path / "tables" / "t.csv")
    assert list(saved.columns) == list(frame.columns) and saved["item_f1"].iloc[0] == 47.391


def test_an_empty_table_says_why_instead(shown):
    nb = Notebook(None, pd.DataFrame(), None, None, None, ("png",), None)
    nb.table(pd.DataFrame({"x": []}), "t", caption="Beside the paper", empty="No system is one of the paper's.")
    (sentence,) = shown
    assert sentence.data == "*Beside the paper: no rows.* No system is one of the paper's."


def test_a_figure_is_drawn_once_shown_once_and_closed(shown, tmp_path):
    nb = Notebook(None, pd.DataFrame(), None, None, None, ("png",), tmp_path)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    assert nb.figure(fig, "line") is None
    (image,) = shown
    assert isinstance(image, IPython.display.Image) and image.data == (tmp_path / "figures" / "line.png").read_bytes()
    assert not plt.fignum_exists(fig.number)


def test_a_section_turns_only_insufficient_data_into_a_sentence(shown):
    nb = Notebook(None, pd.DataFrame(), None, None, None, ("png",), None)
    with nb.section("System versus system"):
        raise InsufficientDataError("the scores table holds 1 system (at least 2 are needed)")
    assert nb.skipped == [("System versus system", "the scores table holds 1 system (at least 2 are needed)")]
    assert "System versus system: not shown for this input." in shown[0].data
    before = plt.get_fignums()
    with nb.section("A figure"):
        plt.figure()
        raise InsufficientDataError("nothing to draw")
    assert plt.get_fignums() == before  # the half-made figure is closed, never shown empty
    with pytest.raises(SgrKitError, match="metric must be one of"):
        with nb.section("Means"):
            raise SgrKitError("metric must be one of item_f1, row_f1, poa")


def test_display_table_styles_a_concatenation_with_a_repeated_index():
    frame = pd.concat([pd.DataFrame({"system": ["a"], "note": ["x"]})] * 2)
    assert display_table(frame).to_html().count("<tr>") == 3


def test_display_table_rounds_like_the_paper_and_escapes_text():
    html = display_table(pd.DataFrame({"system": ["<b>x</b>"], "row_f1": [12.3456], "p": [0.04567],
                                       "wins": [3]})).to_html()
    assert "12.35" in html and "0.046" in html and "&lt;b&gt;" in html and "<b>x" not in html


def test_the_cells_file_is_read_only_when_a_page_uses_it(tmp_path):
    from sgr_kit.output import write_table
    from sgr_kit.pipeline import load_inputs
    from sgr_kit.report.notebook import open_notebook

    demo = load_inputs()
    write_table(demo.scores, tmp_path / "scores.csv")
    write_table(demo.cells, tmp_path / "cells.parquet")
    nb = open_notebook(scores_path=tmp_path / "scores.csv", cells_path=tmp_path / "cells.parquet",
                       systems=["GPT-5.5"], banner=False)
    assert nb._cells is None and nb._load_cells is not None  # not read yet
    assert set(nb.cells["system"]) == {"GPT-5.5"} and len(nb.cells) == (demo.cells["system"] == "GPT-5.5").sum()
    with pytest.raises(SgrKitError, match="cells file .*missing.parquet does not exist"):
        open_notebook(scores_path=tmp_path / "scores.csv", cells_path=tmp_path / "missing.parquet", banner=False)


def test_a_displayed_table_is_the_same_text_and_html_on_every_run():
    frame = pd.DataFrame({"system": ["A", "B"], "item_f1": [47.391, 12.5]})
    shown = display_table(frame, name="main table")
    assert repr(shown) == frame.to_string(index=False)  # not a Styler's memory address
    assert 'id="T_main_table"' in shown._repr_html_()
    assert display_table(frame)._repr_html_() == display_table(frame.copy())._repr_html_()


def test_a_step_number_with_missing_values_shows_as_a_whole_number():
    frame = pd.DataFrame({"system": ["A", "B"], "first_site_step": [3.0, float("nan")], "site_fetch_share": [0.25, 0.0]})
    html = display_table(frame).to_html()
    assert ">3<" in html and "3.00" not in html and "0.25" in html


def test_a_difference_that_rounds_to_zero_has_no_sign_on_pages_and_in_latex():
    from sgr_kit.report.notebook import latex_table

    frame = pd.DataFrame({"system": ["A", "B"], "diff": [-0.004, -0.25]})
    html = display_table(frame).to_html()
    assert ">0.00<" in html and "-0.00" not in html and ">-0.25<" in html
    tex = latex_table(frame)
    assert "-0.00" not in tex and "0.00" in tex and "-0.25" in tex


def _styler_latex(frame: pd.DataFrame, caption: str, precision: int) -> str:
    """What latex_table writes through pandas' Styler (every frame did before the direct writer)."""
    from unittest import mock

    import sgr_kit.report.notebook as helpers

    with mock.patch.object(helpers, "_plain", lambda frame: False):
        return helpers.latex_table(frame, caption=caption, precision=precision)


_TEXT = st.text(alphabet=st.sampled_from(list("ab &%$#_{}~^\\ \t-.,0159éΩ\u202e\x07")), max_size=8)
_COLUMN = st.sampled_from(["float", "int", "Int64", "bool", "boolean", "string", "object", "category"])


@st.composite
def _frames(draw):
    rows = draw(st.integers(0, 5))
    names = draw(st.lists(_TEXT.filter(bool), min_size=1, max_size=4, unique=True))
    data = {}
    for name in names:
        kind = draw(_COLUMN)
        if kind == "float":
            values = draw(st.lists(st.one_of(st.floats(allow_infinity=False), st.just(float("nan"))), min_size=rows,
                                   max_size=rows))
            data[name] = pd.Series(values, dtype="float64")
        elif kind in ("int", "Int64"):
            values = draw(st.lists(st.integers(-10**6, 10**6), min_size=rows, max_size=rows))
            series = pd.Series(values, dtype="int64" if kind == "int" else "Int64")
            if kind == "Int64" and rows:
                series[draw(st.integers(0, rows - 1))] = pd.NA
            data[name] = series
        elif kind in ("bool", "boolean"):
            data[name] = pd.Series(draw(st.lists(st.booleans(), min_size=rows, max_size=rows)),
                                   dtype="bool" if kind == "bool" else "boolean")
        elif kind in ("string", "category"):
            values = draw(st.lists(st.one_of(_TEXT, st.none()), min_size=rows, max_size=rows))
            data[name] = pd.Series(values, dtype="string" if kind == "string" else "category")
        else:  # what a notebook's frames hold in one column: text, numbers, missing values
            values = draw(st.lists(st.one_of(_TEXT, st.floats(allow_nan=True, allow_infinity=False),
                                             st.integers(-99, 99), st.none()), min_size=rows, max_size=rows))
            data[name] = pd.Series(values, dtype="object")
    return pd.DataFrame(data)


@given(frame=_frames(), caption=st.one_of(st.just(""), _TEXT), precision=st.integers(0, 4))
@settings(max_examples=examples(200))
def test_latex_tables_are_written_as_pandas_styler_writes_them(frame, caption, precision):
    # latex_table writes a table of plain column names itself (a thousand-row table: 30 ms, not 600);
    # pandas' Styler, which it used for every table, is the reference
    from sgr_kit.report.notebook import latex_table

    assert latex_table(frame, caption=caption, precision=precision) == _styler_latex(frame, caption, precision)


def test_a_table_of_two_header_rows_is_still_written_by_the_styler():
    from sgr_kit.report.notebook import _plain, latex_table

    frame = pd.DataFrame([[1.0, 2.0]], columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")]))
    assert not _plain(frame) and "multicolumn" in latex_table(frame)
