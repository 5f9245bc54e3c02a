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

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from ..errors import SgrKitError
from ..output import write_table, write_text
from ..pipeline import Inputs, load_inputs
from ..schema import SYNTHETIC_NOTE, check_choice

__all__ = ["FIGURE_FORMATS", "Notebook", "open_notebook", "latex_table"]

#: Accepted values of the notebooks' ``figure_format`` parameter and the files each writes.
FIGURE_FORMATS = {"png": ("png",), "svg": ("svg",), "pdf": ("pdf",), "png+svg": ("png", "svg"),
                  "png+pdf": ("png", "pdf")}


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

            # escape="html": answer text in a table (a cell value, a column name) shows as text, never as markup
            display(frame.style.format(precision=precision, na_rep="", escape="html").hide(axis="index"))
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
        systems = [systems] if isinstance(systems, str) else list(systems)
        unknown = sorted(set(systems) - set(scores["system"]))
        if unknown:
            raise SgrKitError(f"systems: {', '.join(map(repr, unknown))} not in the scores table; it has "
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
