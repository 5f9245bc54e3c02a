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
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

from .errors import SgrKitError

__all__ = ["NOTEBOOKS", "notebook_dir", "notebook_parameters", "run_notebook", "export_html", "score_sources",
           "build_report"]

#: The report's notebooks, in the order they run.
NOTEBOOKS: tuple[str, ...] = ("main_table",)


def notebook_dir() -> Path:
    """The checkout's ``notebooks/`` folder."""
    return Path(__file__).resolve().parents[1] / "notebooks"


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
        template_name="sgr_offline", extra_template_basedirs=[str(Path(__file__).parent / "templates")]
    )
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nbformat.read(str(executed), as_version=4))
    return _atomic_text(Path(html), body)


def _atomic_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def score_sources(
    tasks: Sequence[str],
    runs: Sequence[str],
    *,
    profile: str = "paper",
    rules: str | None = None,
    pairing: str | None = None,
    strict_pairing: bool = False,
    progress: bool = True,
    with_cells: bool = True,
):
    """Load task and run files and score them (with per-cell records unless ``with_cells=False``).

    The one path from files to scores, shared by ``sgr-kit score`` and
    :func:`build_report`. Loader notes and the rules applied are printed to
    stderr; a rules entry that matches no loaded task is a warning.

    Returns
    -------
    ScoredRuns or DataFrame
        As :func:`sgr_kit.score.score_runs`: ``(scores, cells)``, or the scores alone
        with ``with_cells=False``.
    """
    import sys
    import warnings

    from .load import load_runs, load_tasks
    from .rules import load_rules
    from .score import score_runs

    loaded_rules = load_rules(rules) if rules else None
    task_set = load_tasks(list(tasks), pairing=pairing, strict_pairing=strict_pairing)
    for note in task_set.notes:
        print(f"note: {note}", file=sys.stderr)
    if loaded_rules is not None:
        print(loaded_rules.describe(), file=sys.stderr)
        for selector in loaded_rules.unused(list(task_set)):
            warnings.warn(f"rules file {rules}: entry {selector!r} matches no loaded task", UserWarning, stacklevel=2)
    run_set = load_runs(list(runs), tasks=task_set)
    return score_runs(task_set, run_set, profile=profile, rules=loaded_rules, progress=progress,
                      with_cells=with_cells)


def build_report(
    tasks: Sequence[str],
    runs: Sequence[str],
    out_dir: str | os.PathLike,
    *,
    profile: str = "paper",
    failure_policy: str = "zero",
    rules: str | None = None,
    notebooks: Sequence[str] = NOTEBOOKS,
    force: bool = False,
    progress: bool = True,
) -> list[Path]:
    """Score ``runs`` against ``tasks`` once and build the report in ``out_dir``.

    Returns the paths written. An existing report folder is only written into
    with ``force=True``.
    """
    from .output import write_table
    from .reference import audit
    from .summary import format_summary

    out = Path(out_dir)
    if out.exists() and any(out.iterdir()) and not force:
        raise SgrKitError(f"report folder {out} is not empty; pass --force to overwrite the report in it")
    out.mkdir(parents=True, exist_ok=True)
    scores, cells = score_sources(tasks, runs, profile=profile, rules=rules, progress=progress)
    written = [
        write_table(scores, out / "scores.csv", force=True),
        write_table(cells, out / "cells.parquet", force=True),
        write_table(audit(), out / "paper-audit.csv", force=True),
        _atomic_text(out / "summary.txt", format_summary(scores, failure_policy=failure_policy) + "\n"),
    ]
    for name in notebooks:
        executed = run_notebook(
            notebook_dir() / f"{name}.ipynb", out / f"{name}.ipynb",
            parameters={"scores_path": str((out / "scores.csv").resolve()), "failure_policy": failure_policy},
        )
        written += [executed, export_html(executed, out / f"{name}.html")]
    return written
