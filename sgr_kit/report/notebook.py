"""What every analysis notebook does besides its analysis: load, label, show and save.

A notebook's second cell is one call::

    nb = open_notebook(scores_path=scores_path, cells_path=cells_path, tasks_paths=tasks_paths,
                       runs_path=runs_path, audit_path=audit_path, profile=profile, systems=systems,
                       figure_format=figure_format, output_dir=output_dir)

and then shows its results with ``nb.table(frame, "name")`` and ``nb.figure(fig, "name")``,
which display them and, when the report build gave an ``output_dir``, also save every table
as CSV and LaTeX (booktabs) and every figure as PNG and SVG. Simulated data is labelled
wherever it is shown (:meth:`Notebook.banner`).
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from ..errors import SgrKitError
from ..output import write_table, write_text
from ..pipeline import Inputs, load_inputs
from ..schema import SYNTHETIC_NOTE, check_choice
from ..text import NAME_WIDTH, name_html, visible
from .parameters import FIGURE_FORMATS

__all__ = ["FIGURE_FORMATS", "Notebook", "open_notebook", "latex_table", "styled"]

#: Columns holding names from data (shown cut to :data:`~sgr_kit.text.NAME_WIDTH`; other text to 200 characters).
NAME_COLUMNS = ("system", "system_a", "system_b", "task_id", "base_id")


def _is_text(column: pd.Series) -> bool:
    return column.dtype == object or pd.api.types.is_string_dtype(column.dtype)


def _html_cell(width: int):
    def show(value: Any) -> str:
        return name_html(value, width=width) if isinstance(value, str) else html.escape(str(value))
    return show


def styled(frame: pd.DataFrame, *, precision: int = 2):
    """``frame`` as a Styler for a page: numbers rounded, every text escaped, controls visible, names cut.

    A system name, a task id or an answer's text is shown as text (never as markup), with
    invisible direction and control characters as markers (``⟨RLO⟩``) and cut with an ellipsis
    (:func:`sgr_kit.text.name_html`), so no name can reverse or grow a page.
    """
    styler = frame.style.format(precision=precision, na_rep="", escape="html").hide(axis="index")
    text = [c for c in frame.columns if _is_text(frame[c])]
    for column in text:
        width = NAME_WIDTH if (column[0] if isinstance(column, tuple) else column) in NAME_COLUMNS else 200
        styler = styler.format(_html_cell(width), subset=[column], na_rep="")
    return styler.format_index(lambda h: name_html(h) if isinstance(h, str) else html.escape(str(h)), axis=1)


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
    styler = frame.style.format(precision=precision, na_rep="--", escape="latex").hide(axis="index")
    styler = styler.format_index(escape="latex", axis=1)
    text = styler.to_latex(hrules=True, caption=caption or None)
    return text


@dataclass
class Notebook:
    """The inputs of one notebook run and where its results go (see :func:`open_notebook`)."""

    inputs: Inputs
    scores: pd.DataFrame
    cells: pd.DataFrame | None
    audit: pd.DataFrame | None
    systems: list[str] | None
    formats: tuple[str, ...]
    output_dir: Path | None
    saved: list[Path] = field(default_factory=list)

    @property
    def synthetic(self) -> bool:
        """True when the data is simulated (the demo): every result must say so."""
        return self.inputs.synthetic

    def banner(self) -> None:
        """Display the synthetic-data label (nothing for real data)."""
        if self.synthetic:
            from IPython.display import Markdown, display

            display(Markdown(f"> **{SYNTHETIC_NOTE}**"))

    def table(self, frame: pd.DataFrame, name: str, *, caption: str = "", precision: int = 2,
              show: bool = True) -> pd.DataFrame:
        """Display ``frame`` and, with an ``output_dir``, save it as ``tables/<name>.csv`` and ``.tex``.

        The saved CSV keeps full precision; the LaTeX copy is rounded to ``precision``
        decimals for print. Returns ``frame``.
        """
        if self.output_dir is not None:
            folder = self.output_dir / "tables"
            note = f"{caption} ({SYNTHETIC_NOTE})" if self.synthetic else caption
            self.saved.append(write_table(frame, folder / f"{name}.csv", force=True))
            self.saved.append(write_text(latex_table(frame, caption=note, precision=precision),
                                         folder / f"{name}.tex", force=True))
        if show:
            from IPython.display import display

            # answer text in a table (a cell value, a column name) shows as text, never as markup
            display(styled(frame, precision=precision))
        return frame

    def figure(self, fig: Any, name: str) -> Any:
        """Display ``fig`` and, with an ``output_dir``, save it as ``figures/<name>.<format>``; close it."""
        import matplotlib.pyplot as plt
        from IPython.display import display

        from ..figures import save_figure

        if self.output_dir is not None:
            self.saved += list(save_figure(fig, self.output_dir / "figures" / name, formats=self.formats))
        display(fig)
        plt.close(fig)
        return fig


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
    formats = FIGURE_FORMATS[check_choice(figure_format, tuple(FIGURE_FORMATS), name="figure_format")]
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
    nb = Notebook(inputs, scores, cells, audit, systems, formats, out)
    if banner:
        nb.banner()
    return nb
