"""The report build: score once, run the analysis notebooks, export HTML and tables.

``sgr-kit report`` (and ``make report``) call :func:`build_report`, which writes
into one output folder:

- ``scores.csv`` and ``cells.parquet``: every answer's scores and per-cell records;
- ``summary.txt``: per-system means beside the paper's Tables 2 and 3;
- ``paper-audit.csv``: the consistency audit of the paper's published numbers;
- ``<notebook>.ipynb`` and ``<notebook>.html``: each notebook of ``notebooks/``
  executed by papermill with the scores as input.

Notebooks are run with their folder as working directory, as JupyterLab does,
and every parameter passed must exist in the notebook's ``parameters`` cell.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import SgrKitError
from ..output import write_table, write_text
from ..resources import demo_paths, notebooks_dir, templates_dir

__all__ = ["NOTEBOOKS", "notebook_parameters", "run_notebook", "export_html", "build_report"]

#: The report's notebooks, in the order they run.
NOTEBOOKS: tuple[str, ...] = ("01_main_table",)


def notebook_parameters(notebook: str | os.PathLike) -> dict[str, Any]:
    """Names and defaults of the notebook's ``parameters`` cell (via papermill)."""
    import papermill

    path = Path(notebook)
    if not path.is_file():
        raise SgrKitError(f"notebook {path} does not exist")
    return {name: info["default"] for name, info in papermill.inspect_notebook(str(path)).items()}


def run_notebook(
    notebook: str | os.PathLike,
    output: str | os.PathLike,
    *,
    parameters: Mapping[str, Any] | None = None,
    kernel: str = "python3",
) -> Path:
    """Execute ``notebook`` with papermill and write the executed copy to ``output``.

    Parameters
    ----------
    notebook, output : path
    parameters : mapping, optional
        Values for the notebook's ``parameters`` cell. A name the cell does not
        define is refused (a typo would otherwise be silently ignored).
    kernel : str, default "python3"

    Returns
    -------
    Path
        ``output``. When a cell fails, papermill still writes the notebook (showing
        the failing cell) and an :class:`SgrKitError` names it.
    """
    import papermill

    parameters = dict(parameters or {})
    known = notebook_parameters(notebook)
    unknown = sorted(set(parameters) - set(known))
    if unknown:
        raise SgrKitError(
            f"notebook {notebook}: unknown parameter(s) {', '.join(unknown)}; "
            f"its parameters cell defines {', '.join(sorted(known))}"
        )
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        papermill.execute_notebook(
            str(notebook), str(out), parameters=parameters, kernel_name=kernel,
            cwd=str(Path(notebook).parent), progress_bar=False, log_output=False,
        )
    except papermill.PapermillExecutionError as exc:
        raise SgrKitError(
            f"notebook {notebook} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
            f"(the executed copy with the failing cell is at {out})"
        ) from None
    return out


def export_html(executed: str | os.PathLike, html: str | os.PathLike) -> Path:
    """Convert an executed notebook to a standalone HTML page that loads nothing from the network.

    Code cells are hidden; the page uses the ``sgr_offline`` template (JupyterLab's
    look without the CDN scripts for require.js, MathJax, Mermaid and widgets).
    """
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="sgr_offline", extra_template_basedirs=[str(templates_dir())]
    )
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nbformat.read(str(executed), as_version=4))
    return write_text(body, html, force=True)


def build_report(
    tasks: Sequence[str] | None,
    runs: Sequence[str] | None,
    out_dir: str | os.PathLike,
    *,
    audit_labels: str | None = None,
    profile: str = "paper",
    failure_policy: str = "zero",
    rules: str | None = None,
    pairing: str | None = None,
    strict_pairing: bool = False,
    notebooks: Sequence[str] = NOTEBOOKS,
    force: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Score ``runs`` against ``tasks`` once and build the report in ``out_dir``.

    With neither ``tasks`` nor ``runs``, the SYNTHETIC demo benchmark shipped with the
    package is used, with its audit labels. Returns the paths written. An existing
    report folder is only written into with ``force=True``.
    """
    from ..pipeline import score_files
    from ..reference import audit
    from .summary import format_summary

    if not tasks and not runs:
        demo = demo_paths()
        tasks, runs = [str(demo["constraint"]), str(demo["goal"])], [str(demo["runs"])]
        audit_labels = audit_labels or str(demo["audit"])
    elif not tasks or not runs:
        raise SgrKitError("report: give both --tasks and --runs, or neither to build the demo report")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SgrKitError(f"report folder {out} is an existing file; expected a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise SgrKitError(f"report folder {out} is not empty; pass --force to overwrite the report in it")
    out.mkdir(parents=True, exist_ok=True)
    _, _, (scores, cells) = score_files(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                        strict_pairing=strict_pairing, progress=progress)
    written = [
        write_table(scores, out / "scores.csv", force=True),
        write_table(cells, out / "cells.parquet", force=True),
        write_table(audit(), out / "paper-audit.csv", force=True),
        write_text(format_summary(scores, failure_policy=failure_policy) + "\n", out / "summary.txt", force=True),
    ]
    for name in notebooks:
        executed = run_notebook(
            notebooks_dir() / f"{name}.ipynb", out / f"{name}.ipynb",
            parameters={"scores_path": str((out / "scores.csv").resolve()), "failure_policy": failure_policy},
        )
        written += [executed, export_html(executed, out / f"{name}.html")]
    return written
