"""What every analysis notebook does besides its analysis: load, label, show and save.

A notebook's second cell is one call::

    nb = open_notebook(scores_path=scores_path, cells_path=cells_path, tasks_paths=tasks_paths,
                       runs_path=runs_path, audit_path=audit_path, profile=profile, systems=systems,
                       figure_format=figure_format, output_dir=output_dir)

and then shows its results with ``nb.table(frame, "name")`` and ``nb.figure(fig, "name")``,
which display them (once: they return None, so a cell's last value shows nothing again)
and, when the report build gave an ``output_dir``, also save every table as CSV and LaTeX
(booktabs) and every figure as PNG and SVG. Simulated data is labelled wherever it is
shown (:meth:`Notebook.banner`).

A part of a page that cannot be computed for this input runs inside ``with
nb.section("title"):``: an :class:`~sgr_kit.errors.InsufficientDataError` raised there (one
system for a comparison of systems, too few pairs) becomes a sentence on the page saying
why, and the rest of the page builds. Any other error still fails the notebook.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import pandas as pd

from ..errors import InsufficientDataError, SgrKitError
from ..output import write_table, write_text
from ..pipeline import Inputs, load_inputs
from ..schema import SYNTHETIC_NOTE, check_choice
from ..testing import pause
from ..text import NAME_WIDTH, fixed, name_html, visible
from .parameters import FIGURE_FORMATS
from .summary import no_interval_reason

__all__ = ["FIGURE_FORMATS", "Notebook", "open_notebook", "latex_table", "display_table", "with_intervals",
           "keep_parameters"]

#: Columns holding names from data (shown cut to :data:`~sgr_kit.text.NAME_WIDTH`; other text to 200 characters).
NAME_COLUMNS = ("system", "system_a", "system_b", "task_id", "base_id")


def _is_text(column: pd.Series) -> bool:
    return column.dtype == object or pd.api.types.is_string_dtype(column.dtype)


def _html_cell(width: int):
    def show(value: Any) -> str:
        return name_html(value, width=width) if isinstance(value, str) else html.escape(str(value))
    return show


def latex_table(frame: pd.DataFrame, *, caption: str = "", precision: int = 2) -> str:
    """``frame`` as a LaTeX ``tabular`` with booktabs rules, text escaped, numbers rounded for print.

    Examples
    --------
    >>> print(latex_table(pd.DataFrame({"system": ["A&B"], "item_f1": [47.391]})).strip())
    \\begin{tabular}{lr}
    \\toprule
    system & item\\_f1 \\\\
    \\midrule
    A\\&B & 47.39 \\\\
    \\bottomrule
    \\end{tabular}
    """
    frame = frame.copy()
    for column in [c for c in frame.columns if _is_text(frame[c])]:  # names from data: controls made visible
        frame[column] = [visible(v, newlines=False) if isinstance(v, str) else v for v in frame[column]]
    if _plain(frame):
        return _latex_plain(frame, caption, precision)
    styler = frame.style.format(precision=precision, na_rep="--", escape="latex").hide(axis="index")
    styler = styler.format(fixed(precision), subset=_float_columns(frame), na_rep="--")
    styler = styler.format_index(escape="latex", axis=1)
    text = styler.to_latex(hrules=True, caption=caption or None)
    return text


def _styler_formatting() -> tuple[Callable, Callable] | None:
    """pandas' ``Styler`` value formatter and LaTeX escaping, or None where this pandas has moved them."""
    try:
        from pandas.io.formats.style_render import _default_formatter, _escape_latex
    except ImportError:
        return None
    return _default_formatter, _escape_latex


def _plain(frame: pd.DataFrame) -> bool:
    """One level of unique text column names: what :func:`_latex_plain` writes as pandas' ``Styler`` would
    (with the Styler's own value formatter and LaTeX escaping; without them the Styler writes every table)."""
    return (_styler_formatting() is not None and len(frame.columns) > 0
            and not isinstance(frame.columns, pd.MultiIndex) and frame.columns.is_unique
            and all(isinstance(c, str) for c in frame.columns))


def _latex_plain(frame: pd.DataFrame, caption: str, precision: int) -> str:
    """The ``tabular`` :func:`latex_table` gets from pandas' ``Styler`` for a frame of one header row, written
    directly: the same characters (``tests/test_report_notebook.py`` compares the two), in a
    twentieth of the time on a table of a thousand rows (the Styler copies a formatter per cell).
    """
    from pandas.api.types import is_numeric_dtype

    default_formatter, escape_latex = _styler_formatting()
    floats = set(_float_columns(frame))  # the columns the Styler path formats with fixed(precision)
    columns = []
    for name in frame.columns:
        values = frame[name].tolist()
        if name in floats:
            shown = fixed(precision)
            cells = ["--" if pd.isna(x) else shown(x) for x in values]
        else:
            cells = ["--" if _missing(x) else str(default_formatter(escape_latex(x) if isinstance(x, str) else x,
                                                                    precision)) for x in values]
        columns.append(cells)
    align = "".join("r" if is_numeric_dtype(frame[name]) else "l" for name in frame.columns)
    lines = [f"\\begin{{tabular}}{{{align}}}", "\\toprule",
             " & ".join(escape_latex(name) for name in frame.columns) + " \\\\", "\\midrule"]
    lines += [" & ".join(row) + " \\\\" for row in zip(*columns)]
    lines += ["\\bottomrule", "\\end{tabular}"]
    if caption:
        lines = ["\\begin{table}", f"\\caption{{{caption}}}", *lines, "\\end{table}"]
    return "\n".join(lines) + "\n"


def _missing(x: Any) -> bool:
    try:
        return pd.isna(x) is True
    except (TypeError, ValueError):
        return False


def _float_columns(frame: pd.DataFrame) -> list:
    return [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]


#: Columns shown as text that may wrap (long notes), not as numbers.
_TEXT_COLUMNS = ("note", "reason", "claim", "location", "written", "raw", "reference", "place", "differences")


def _is_p(name: object) -> bool:
    name = name[-1] if isinstance(name, tuple) else name
    return isinstance(name, str) and (name == "p" or name.startswith("p_") and name != "p_min_alpha")


def _is_count(name: object, series: pd.Series) -> bool:
    name = name[-1] if isinstance(name, tuple) else name
    if pd.api.types.is_integer_dtype(series):
        return True
    # whole numbers held as floats because some are missing (e.g. no step reached the site)
    return isinstance(name, str) and (name.startswith("n_") or name.endswith("_step")
                                      or name in ("wins", "ties", "losses", "tasks", "steps", "tool_calls", "hosts",
                                                  "repeat", "repeats"))


def _p_text(p: float) -> str:
    return "" if pd.isna(p) else ("&lt;0.001" if p < 0.001 else f"{p:.3f}")  # HTML: the Styler shows it as is


def _count_text(x: float) -> str:
    return "" if pd.isna(x) else f"{x:,.0f}"


class StyledTable:
    """A table styled for reading (:func:`display_table`): HTML on a page, plain text in a text output.

    ``styler`` is the pandas ``Styler``; other attributes are looked up there (``.to_html()``).
    Its plain-text form is the table itself, where a ``Styler`` would show its memory address
    (which differs on every run, so a saved notebook would never be the same twice).
    """

    def __init__(self, styler: Any, frame: pd.DataFrame) -> None:
        self.styler = styler
        self._text = frame.to_string(index=False)

    def _repr_html_(self) -> str:
        return self.styler.to_html()

    def __repr__(self) -> str:
        return self._text

    def __getattr__(self, name: str) -> Any:
        if name == "styler":
            raise AttributeError(name)
        return getattr(self.styler, name)


def display_table(frame: pd.DataFrame, *, precision: int = 2, name: str = "") -> StyledTable:
    """``frame`` styled for reading: no index, scores to ``precision`` decimals, p-values to 3, counts whole.

    Text is HTML-escaped (an answer's text never becomes markup); the ``note`` column may
    wrap. Returns a :class:`StyledTable` (display it; it is not a computation). The ids in
    its HTML come from ``name`` (or, without one, from the table's content), not from a
    random number, so that a page built twice from the same inputs is the same page.

    Examples
    --------
    >>> html = display_table(pd.DataFrame({"system": ["<b>"], "item_f1": [47.391], "p_holm": [0.00012],
    ...                                    "n_pairs": [50]})).to_html()
    >>> "47.39" in html and "&lt;b&gt;" in html and "&lt;0.001" in html and ">50<" in html
    True
    """
    frame = frame.reset_index(drop=True)  # the index is hidden; a repeated one (a concatenation) cannot be styled
    formats = {}
    for column in frame.columns:
        series = frame[column]
        if _is_p(column) and pd.api.types.is_numeric_dtype(series):
            formats[column] = _p_text
        elif _is_count(column, series) and pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            formats[column] = _count_text
    styler = frame.style.format(precision=precision, na_rep="", escape="html").hide(axis="index")
    styler = styler.format(fixed(precision), subset=_float_columns(frame), na_rep="")
    if formats:
        styler = styler.format(formats, subset=list(formats), na_rep="")
    # names and answer text from data: escaped, controls made visible, cut with an ellipsis
    # (sgr_kit.text.name_html), so no name can reverse or grow a page
    for column in [c for c in frame.columns if _is_text(frame[c])]:
        width = NAME_WIDTH if (column[0] if isinstance(column, tuple) else column) in NAME_COLUMNS else 200
        styler = styler.format(_html_cell(width), subset=[column], na_rep="")
    # a header breaks only after an underscore (never inside a word)
    styler = styler.format_index(lambda h: name_html(h).replace("_", "_<wbr>") if isinstance(h, str)
                                 else html.escape(str(h)), axis=1)
    text = [c for c in frame.columns if (c[-1] if isinstance(c, tuple) else c) in _TEXT_COLUMNS]
    if text:
        styler = styler.set_properties(subset=text, **{"white-space": "normal", "text-align": "left"})
    key = re.sub(r"[^A-Za-z0-9_-]", "_", name) if name else hashlib.sha1(
        frame.to_csv(index=False).encode("utf-8")).hexdigest()[:10]
    return StyledTable(styler.set_uuid(key), frame)


def with_intervals(frame: pd.DataFrame, metrics: Sequence[str], *, digits: int = 2,
                   interval_digits: int | None = None) -> pd.DataFrame:
    """For display: each ``<metric>, <metric>_ci_low, <metric>_ci_high`` as one text column ``<metric> [CI]``.

    Values show ``digits`` decimals; the interval's bounds ``interval_digits`` (by default one
    for scores in percent shown with two, as the paper's tables; else as many as the value,
    so a cost of 0.152 USD reads ``0.152 [0.101, 0.203]``, not ``[0.1, 0.2]``).

    A value without an interval shows ``[n/a: why]`` when the frame has a ``<metric>_note``
    column saying why (e.g. too few base problems), else the value alone. Three columns
    become one, so a table of several metrics fits the page; the saved table keeps the numbers.

    Examples
    --------
    >>> t = pd.DataFrame({"system": ["a", "b"], "item_f1": [47.391, 12.0], "item_f1_ci_low": [40.0, None],
    ...                   "item_f1_ci_high": [55.25, None]})
    >>> with_intervals(t, ["item_f1"]).to_dict("records")
    [{'system': 'a', 'item_f1 [CI]': '47.39 [40.0, 55.2]'}, {'system': 'b', 'item_f1 [CI]': '12.00'}]
    """
    out = frame.copy()
    for metric in metrics:
        low, high = out.pop(f"{metric}_ci_low"), out.pop(f"{metric}_ci_high")
        notes = out.pop(f"{metric}_note") if f"{metric}_note" in out.columns else pd.Series("", index=out.index)
        value = fixed(digits)
        bound = fixed(interval_digits if interval_digits is not None else 1 if digits == 2 else digits)

        def why(v: float, lo: float, hi: float, note: object) -> str:
            if pd.isna(v):
                return ""
            if pd.isna(lo) or pd.isna(hi):
                return f" [n/a: {no_interval_reason(note)}]" if isinstance(note, str) and note else ""
            return f" [{bound(lo)}, {bound(hi)}]"

        text = [("" if pd.isna(v) else value(v)) + why(v, lo, hi, note)
                for v, lo, hi, note in zip(out[metric], low, high, notes)]
        out[metric] = text
        out = out.rename(columns={metric: f"{metric} [CI]"})
    return out


@dataclass
class Notebook:
    """The inputs of one notebook run and where its results go (see :func:`open_notebook`)."""

    inputs: Inputs
    scores: pd.DataFrame
    _cells: pd.DataFrame | None
    audit: pd.DataFrame | None
    systems: list[str] | None
    formats: tuple[str, ...]
    output_dir: Path | None
    saved: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    _load_cells: Callable[[], pd.DataFrame] | None = None

    @property
    def cells(self) -> pd.DataFrame | None:
        """The per-cell records (of the selected systems), read from the cells file when first used.

        Only the where-the-points-went page needs them; the other pages never pay for reading
        the (large) cells file.
        """
        if self._load_cells is not None:
            cells = self._load_cells()
            if self.systems is not None:
                cells = cells[cells["system"].isin(self.systems)].reset_index(drop=True)
            self._cells, self._load_cells = cells, None
        return self._cells

    @property
    def synthetic(self) -> bool:
        """True when the data is simulated (the demo): every result must say so."""
        return self.inputs.synthetic

    @property
    def pooled_label(self) -> str:
        """What the pooled rows (``all systems``) average over, in words, for captions."""
        n = self.scores["system"].nunique()
        total = self.inputs.scores["system"].nunique()
        if n < total:
            return f"the {n} selected systems (of {total} in the scores table)"
        return f"all {n} systems"

    def banner(self) -> None:
        """Display the synthetic-data label (nothing for real data)."""
        if self.synthetic:
            from IPython.display import Markdown, display

            display(Markdown(f"> **{SYNTHETIC_NOTE}**"))

    def say(self, text: str) -> None:
        """Display one sentence of Markdown on the page."""
        from IPython.display import Markdown, display

        display(Markdown(text))

    @contextmanager
    def section(self, title: str) -> Iterator[None]:
        """Run one part of a page; if its input is too small for it, say why on the page and go on.

        Only :class:`~sgr_kit.errors.InsufficientDataError` is caught (valid input that
        holds too little for this analysis); its message becomes the page's sentence and is
        recorded in :attr:`skipped`; a figure the section had begun is closed, so it is not shown
        half-drawn. Every other error propagates (the notebook fails).

        Examples
        --------
        >>> nb = Notebook(None, pd.DataFrame(), None, None, None, ("png",), None)
        >>> with nb.section("System versus system"):
        ...     raise InsufficientDataError("the scores table holds 1 system")
        <IPython.core.display.Markdown object>
        >>> nb.skipped
        [('System versus system', 'the scores table holds 1 system')]
        """
        import matplotlib.pyplot as plt

        before = set(plt.get_fignums())
        try:
            yield
        except InsufficientDataError as exc:
            for number in set(plt.get_fignums()) - before:  # a figure begun before the error: never shown
                plt.close(number)
            self.skipped.append((title, str(exc)))
            self.say(f"> **{title}: not shown for this input.** {exc}.")

    def table(self, frame: pd.DataFrame, name: str, *, caption: str = "", precision: int = 2,
              show: bool | Sequence[str] = True, empty: str = "") -> None:
        """Display ``frame`` once and, with an ``output_dir``, save it as ``tables/<name>.csv`` and ``.tex``.

        The saved CSV keeps full precision and every column; the LaTeX copy is rounded to
        ``precision`` decimals for print. On the page the table has no index column, scores
        to ``precision`` decimals, p-values to 3 and whole counts (:func:`display_table`).

        Parameters
        ----------
        show : bool, list of str or DataFrame, default True
            False: save only. A list of columns: show only those (the saved files keep all),
            so a wide table reads without scrolling. A DataFrame: show it instead (a
            display form of ``frame``, e.g. :func:`with_intervals`).
        empty : str, optional
            The sentence shown instead of an empty table, saying why it is empty.

        Returns
        -------
        None
            Nothing, so that a cell ending in ``nb.table(...)`` shows the table once.
        """
        if self.output_dir is not None:
            folder = self.output_dir / "tables"
            note = f"{caption} ({SYNTHETIC_NOTE})" if self.synthetic else caption
            self.saved.append(write_table(frame, folder / f"{name}.csv", force=True))
            self.saved.append(write_text(latex_table(frame, caption=note, precision=precision),
                                         folder / f"{name}.tex", force=True))
        if isinstance(show, bool) and not show:
            return None
        if frame.empty:
            self.say(f"*{caption or name}: no rows.* {empty}".rstrip())
            return None
        from IPython.display import display

        if isinstance(show, pd.DataFrame):
            shown = show
        else:
            shown = frame if show is True else frame[[c for c in show if c in frame.columns]]
        if caption:
            self.say(f"**{caption}**")
        # escape="html": answer text in a table (a cell value, a column name) shows as text, never as markup
        display(display_table(shown, precision=precision, name=name))
        return None

    def figure(self, fig: Any, name: str) -> None:
        """Display ``fig`` once and, with an ``output_dir``, save it as ``figures/<name>.<format>``; close it.

        With a saved PNG, the page shows that file (the figure is drawn once for both).
        Returns None, so that a cell ending in ``nb.figure(...)`` shows the figure once.
        """
        import matplotlib.pyplot as plt
        from IPython.display import display

        from ..figures import save_figure

        files = []
        if self.output_dir is not None:
            files = list(save_figure(fig, self.output_dir / "figures" / name, formats=self.formats))
            self.saved += files
        png = [f for f in files if f.suffix == ".png"]
        if png:  # the saved PNG is shown: the figure is rendered once, and the page shows the file's pixels
            from IPython.display import Image

            display(Image(filename=str(png[0]), width=shown_width(fig.get_figwidth())))
        else:
            display(fig)
        plt.close(fig)
        return None


#: Pixels per inch of a figure on a page, and the narrowest a figure is shown (CSS pixels).
SCREEN_DPI, MIN_FIGURE_PX = 150, 600


def shown_width(inches: float) -> int:
    """How wide a figure ``inches`` wide is shown on a page: 150 px per inch, at least 600 px.

    At 150 px per inch the theme's smallest text (6 pt) is 12.5 px on screen; a one-column figure
    (3.3 in) is widened to 600 px. The page's CSS caps every figure at the text column's width.

    Examples
    --------
    >>> shown_width(3.3), shown_width(6.9)
    (600, 1035)
    """
    return max(MIN_FIGURE_PX, round(inches * SCREEN_DPI))


def open_notebook(
    *,
    scores_path: str | os.PathLike | None = None,
    cells_path: str | os.PathLike | None = None,
    tasks_paths: Sequence[str | os.PathLike] | str | None = None,
    runs_path: Sequence[str | os.PathLike] | str | None = None,
    audit_path: str | os.PathLike | None = None,
    profile: str = "paper",
    systems: Sequence[str] | None = None,
    figure_format: str = "png+svg",
    output_dir: str | os.PathLike | None = None,
    banner: bool = True,
) -> Notebook:
    """Load a notebook's inputs (:func:`sgr_kit.pipeline.load_inputs`) and show the synthetic label.

    Parameters
    ----------
    scores_path, cells_path, tasks_paths, runs_path, audit_path, profile
        As :func:`sgr_kit.pipeline.load_inputs`; all None: the SYNTHETIC demo shipped with sgr-kit.
    systems : list of str, optional
        Keep only these systems (each must be in the scores table).
    figure_format : {"png", "svg", "pdf", "png+svg", "png+pdf"}, default "png+svg"
        The files each saved figure gets.
    output_dir : path, optional
        Where the report build collects ``tables/`` and ``figures/``; None: show only.
    banner : bool, default True
        Display the synthetic-data label now, when it applies.

    Returns
    -------
    Notebook
    """
    pause("report-page-running")
    formats = FIGURE_FORMATS[check_choice(figure_format, tuple(FIGURE_FORMATS), name="figure_format")]
    load_cells = None
    if scores_path is not None and cells_path is not None:  # read the cells file only if a page uses it
        if not Path(cells_path).is_file():
            raise SgrKitError(f"cells file {cells_path} does not exist; expected the --cells output of `sgr-kit score`")
        load_cells = lambda scores=scores_path, cells=cells_path: load_inputs(scores=scores, cells=cells).cells  # noqa: E731
        cells_path = None
    inputs = load_inputs(scores=scores_path, cells=cells_path, tasks=tasks_paths, runs=runs_path,
                         audit=audit_path, profile=profile)
    scores, cells, audit = inputs.scores, inputs.cells, inputs.audit
    if systems is not None:
        if isinstance(systems, str) and systems.strip().startswith("[") and systems.strip().endswith("]"):
            raise SgrKitError(
                f"systems is the text {systems!r}, not a list: papermill's -p passes a value as text; give a list "
                f"with papermill -y 'systems: [A, B]' (or sgr-kit report -p systems '[A, B]')")
        systems = [systems] if isinstance(systems, str) else list(systems)
        unknown = sorted(set(systems) - set(scores["system"]))
        if unknown:
            hint = ""
            if any(s[:1] in "\"'[" or s[-1:] in "\"']" for s in unknown):
                hint = " (the quotes or brackets are part of the name as given: give a YAML list, -y 'systems: [A, B]')"
            raise SgrKitError(f"systems: {', '.join(map(repr, unknown))} not in the scores table{hint}; it has "
                              f"{', '.join(map(repr, scores['system'].unique()))}")
        scores = scores[scores["system"].isin(systems)].reset_index(drop=True)
        if cells is not None:
            cells = cells[cells["system"].isin(systems)].reset_index(drop=True)
        if audit is not None:
            audit = audit[audit["system"].isin(systems)].reset_index(drop=True)
    out = Path(output_dir) if output_dir is not None else None
    nb = Notebook(inputs, scores, cells, audit, systems, formats, out, _load_cells=load_cells)
    if banner:
        nb.banner()
    return nb


def _assignments(source: str) -> dict[str, Any]:
    """The top-level ``name = value`` statements of a cell: name -> its ``ast.Assign`` node."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {node.targets[0].id: node for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}


def _tagged(cell: Any, tag: str) -> bool:
    return tag in (cell.get("metadata", {}).get("tags") or [])


def keep_parameters(executed: str | os.PathLike, *, saved: Mapping[str, Any] | None = None) -> bool:
    r"""Make an executed notebook's ``parameters`` cell hold the values papermill injected, and drop the injected cell.

    Papermill writes the values it was given into a cell tagged ``injected-parameters``
    after the ``parameters`` cell; run again with any ``-p``, it *replaces* that cell, so every
    value not named again would fall back to the notebook's defaults (the demo). Written
    into the ``parameters`` cell itself (each value where its default was, the comments
    kept), the values are the saved notebook's own: ``papermill page.ipynb copy.ipynb --cwd
    REPORT -p n_boot 200`` changes ``n_boot`` and nothing else.

    ``saved`` gives values the saved notebook holds in place of the injected ones (the report
    build gives each page an ``output_dir`` of its own, so that a re-run never writes into the
    report: :meth:`~sgr_kit.report.plan.ReportPlan.rerun_dir`).

    Returns True when the notebook was rewritten (False: no injected cell, or no
    ``parameters`` cell to hold its values; the file is then left as it is).

    Examples
    --------
    >>> import nbformat, tempfile
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_code_cell("n_boot = 10000  # resamples\npath = None", metadata={"tags": ["parameters"]}),
    ...     nbformat.v4.new_code_cell("# Parameters\npath = \"scores.csv\"\n", metadata={"tags": ["injected-parameters"]}),
    ...     nbformat.v4.new_code_cell("print(path)")])
    >>> file = Path(tempfile.mkdtemp()) / "page.ipynb"
    >>> _ = file.write_text(nbformat.writes(nb))
    >>> keep_parameters(file)
    True
    >>> [c.source for c in nbformat.read(str(file), as_version=4).cells]
    ['n_boot = 10000  # resamples\npath = "scores.csv"', 'print(path)']
    """
    import ast

    import nbformat

    path = Path(executed)
    nb = nbformat.read(str(path), as_version=4)
    injected = [i for i, c in enumerate(nb.cells) if _tagged(c, "injected-parameters")]
    own = [i for i, c in enumerate(nb.cells) if _tagged(c, "parameters")]
    if not injected or not own:
        return False
    cell = nb.cells[own[0]]
    lines = cell.source.split("\n")
    given = {}
    for i in injected:
        source = nb.cells[i].source
        given.update({name: ast.get_source_segment(source, node.value)
                      for name, node in _assignments(source).items()})
    for name, value in (saved or {}).items():
        if name in given:
            given[name] = repr(value)
    defaults = _assignments(cell.source)
    extra = []
    # from the last line up, so that a replacement does not move the columns of the ones before it
    for name, node in sorted(defaults.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset), reverse=True):
        if name not in given or node.value.lineno != node.value.end_lineno:
            continue
        row = node.value.lineno - 1
        line = lines[row].encode("utf-8")  # ast columns count UTF-8 bytes
        lines[row] = (line[:node.value.col_offset].decode("utf-8") + given[name]
                      + line[node.value.end_col_offset:].decode("utf-8"))
    for name, value in given.items():  # a value whose default spans lines, or a name the cell lacks: at the end
        node = defaults.get(name)
        if node is None or node.value.lineno != node.value.end_lineno:
            extra.append(f"{name} = {value}")
    cell.source = "\n".join(lines + (["# values this report was built with", *extra] if extra else []))
    if cell.get("outputs"):
        cell.outputs = []
    nb.cells = [c for i, c in enumerate(nb.cells) if i not in injected]
    count = 0  # execution counts without the injected cell's, as a run of the saved notebook numbers them
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
            for output in cell.get("outputs", []):
                if output.get("output_type") == "execute_result":
                    output["execution_count"] = count
    write_text(nbformat.writes(nb), path, force=True)
    return True
