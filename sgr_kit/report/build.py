"""The report build: score once, run the analysis notebooks in parallel, write an offline report.

``sgr-kit report`` (and ``make report``) call :func:`build_report`, which writes one folder:

- ``index.html``: the headline table (per-system means with 95% intervals, beside the paper),
  the key figures and a link to every page;
- ``<notebook>.html`` (code hidden) and ``<notebook>.ipynb`` (executed) for each notebook;
- ``figures/`` (PNG and SVG) and ``tables/`` (CSV and LaTeX with booktabs rules);
- ``scores.csv``, ``cells.parquet``, ``summary.txt``, ``paper-audit.csv`` and, when given,
  ``audit-labels.csv``;
- ``provenance.json``: every input with its SHA-256, the package, Python and library
  versions, the parameters, each notebook's time and status, and the command line.

How it behaves:

- scoring happens once; a rebuild whose inputs, profile, rules, pairing and package version
  are unchanged (the scoring key in ``provenance.json``) reuses the previous report's scores
  and per-cell records instead of scoring again;
- notebooks run with papermill in worker processes (default: one per core); every
  ``-p NAME VALUE`` must be defined by a notebook's ``parameters`` cell, and values are
  passed as data (YAML scalars or lists), never executed;
- a failing notebook is reported with its name and failing cell; the other notebooks still
  build, the index marks the failure, and the build reports failure (non-zero exit status);
- the report is built in a temporary folder beside ``out_dir`` and moved into place only when
  complete, so an interrupted or crashed build leaves the previous report as it was; an
  existing report is replaced only with ``force=True``;
- every page opens offline: nothing is loaded from outside the report folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import signal
import sys
import threading
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from .. import __version__
from ..errors import SgrKitError
from ..output import write_table, write_text
from ..resources import demo_paths, notebooks_dir, templates_dir
from ..schema import check_failure_policy, check_profile

__all__ = ["NOTEBOOKS", "NotebookRun", "ReportResult", "notebook_parameters", "check_parameters",
           "parse_parameter", "run_notebook", "export_html", "build_report"]

#: The report's notebooks, in reading order (``notebooks/<name>.ipynb`` shipped with the package).
NOTEBOOKS: tuple[str, ...] = (
    "01_main_table", "02_constraint_vs_goal", "03_cardinality_bins", "04_family_heatmaps",
    "05_error_profiles", "06_where_points_went", "09_site_reach",
)
#: Figures the index page shows when the notebooks made them (``figures/<name>.png``).
KEY_FIGURES: tuple[tuple[str, str], ...] = (
    ("item_vs_row", "Item-F1 against Row-F1 per system (Figure 2a)"),
    ("constraint_vs_goal_forest", "Constraint minus goal, per system, with 95% intervals"),
    ("family_heatmaps", "Item-F1 and Row-F1 by source family (Figure 3)"),
    ("points_lost", "Where the Item-F1 points went"),
    ("site_reach", "How often the task's site was reached, and Item-F1 with and without reaching it"),
)
#: Libraries whose versions the provenance records.
LIBRARIES = ("pandas", "numpy", "scipy", "matplotlib", "seaborn", "pyarrow", "papermill", "nbconvert",
             "nbformat", "nbclient", "ipykernel", "pyyaml")


def notebook_parameters(notebook: str | os.PathLike) -> dict[str, Any]:
    """Names and defaults of the notebook's ``parameters`` cell (via papermill)."""
    import papermill

    path = Path(notebook)
    if not path.is_file():
        raise SgrKitError(f"notebook {path} does not exist")
    try:
        found = papermill.inspect_notebook(str(path))
    except ValueError as exc:  # e.g. no kernel name in the notebook's metadata
        raise SgrKitError(f"notebook {path}: cannot read its parameters cell ({exc})") from None
    return {name: info["default"] for name, info in found.items()}


def parse_parameter(name: str, text: str) -> Any:
    """A ``-p NAME VALUE`` value as data: a YAML scalar or list (``0.1``, ``true``, ``[a, b]``, ``null``).

    The value is never executed; text that YAML cannot read stays a string.

    Examples
    --------
    >>> parse_parameter("n_boot", "2000"), parse_parameter("systems", "[GPT-5.5, Kimi K2.5]")
    (2000, ['GPT-5.5', 'Kimi K2.5'])
    >>> parse_parameter("scores_path", "__import__('os')")
    "__import__('os')"
    """
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, (dict, set)) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)):
        raise SgrKitError(f"-p {name}: expected a number, text, true/false, null or a flat list; found {text!r}")
    return value


def check_parameters(parameters: Mapping[str, Any], notebooks: Sequence[Path]) -> dict[str, set[str]]:
    """Refuse a parameter no notebook defines; return each notebook's parameter names.

    Raises
    ------
    SgrKitError
        Naming the unknown parameter(s) and listing the accepted ones.
    """
    known = {path.stem: set(notebook_parameters(path)) for path in notebooks}
    accepted = set().union(*known.values()) if known else set()
    unknown = sorted(set(parameters) - accepted)
    if unknown:
        raise SgrKitError(
            f"unknown notebook parameter(s) {', '.join(unknown)}; the notebooks' parameters cells define "
            f"{', '.join(sorted(accepted))}"
        )
    return known


def run_notebook(
    notebook: str | os.PathLike,
    output: str | os.PathLike,
    *,
    parameters: Mapping[str, Any] | None = None,
    kernel: str = "python3",
    cwd: str | os.PathLike | None = None,
) -> Path:
    """Execute ``notebook`` with papermill and write the executed copy to ``output``.

    Parameters
    ----------
    notebook, output : path
    parameters : mapping, optional
        Values for the notebook's ``parameters`` cell. A name the cell does not
        define is refused (a typo would otherwise be silently ignored).
    kernel : str, default "python3"
    cwd : path, optional
        Working directory of the kernel (default: the folder of ``output``).

    Returns
    -------
    Path
        ``output``. When a cell fails, papermill still writes the notebook (showing
        the failing cell) and an :class:`SgrKitError` names the notebook and the cell.
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
            cwd=str(cwd if cwd is not None else out.parent), progress_bar=False, log_output=False,
        )
    except papermill.PapermillExecutionError as exc:
        raise SgrKitError(
            f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
            f"(the executed copy with the failing cell is {out.name})"
        ) from None
    return out


def export_html(executed: str | os.PathLike, html: str | os.PathLike) -> Path:
    """Convert an executed notebook to a standalone HTML page that loads nothing from the network.

    Code cells are hidden; the page uses the ``sgr_offline`` template (JupyterLab's
    look without the CDN scripts for require.js, MathJax, Mermaid and widgets).
    """
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="sgr_offline", extra_template_basedirs=[str(templates_dir())])
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nbformat.read(str(executed), as_version=4))
    return write_text(body, html, force=True)


@dataclass(frozen=True)
class NotebookRun:
    """How one notebook of a report build went."""

    name: str
    ok: bool
    seconds: float
    error: str = ""


@dataclass
class ReportResult:
    """What :func:`build_report` built: the folder, its files, and each notebook's run."""

    folder: Path
    files: list[Path]
    notebooks: list[NotebookRun]
    scoring_reused: bool = False
    synthetic: bool = False

    @property
    def ok(self) -> bool:
        """True when every notebook ran to the end."""
        return all(run.ok for run in self.notebooks)

    @property
    def failed(self) -> list[NotebookRun]:
        return [run for run in self.notebooks if not run.ok]


def _quiet_worker() -> None:
    """Worker start-up: the kernels' own start-up chatter (they inherit stderr) goes nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def _execute(job: tuple[str, str, str, dict]) -> NotebookRun:
    """Run one notebook and export its page (in a worker process)."""
    source, name, folder, parameters = job
    start = time.perf_counter()
    executed = Path(folder) / f"{name}.ipynb"
    error = ""
    try:
        run_notebook(source, executed, parameters=parameters, cwd=folder)
    except SgrKitError as exc:
        error = str(exc)
    except Exception as exc:  # a kernel that dies or cannot start is a failed notebook, not a crashed build
        error = f"notebook {name} could not run: {type(exc).__name__}: {exc}"
    if executed.is_file():
        export_html(executed, Path(folder) / f"{name}.html")
    return NotebookRun(name, not error, time.perf_counter() - start, error)


def _resolve_notebooks(notebooks: Sequence[str | os.PathLike]) -> list[Path]:
    """Notebook names (``01_main_table``), prefixes (``01``) or paths -> notebook files."""
    folder = notebooks_dir()
    shipped = sorted(folder.glob("*.ipynb"))
    out = []
    for item in notebooks:
        text = str(item)
        if text.endswith(".ipynb"):
            path = Path(text)
            if not path.is_file():
                raise SgrKitError(f"notebook {path} does not exist")
            out.append(path)
            continue
        matches = [p for p in shipped if p.stem == text or p.stem.split("_", 1)[0] == text]
        if len(matches) != 1:
            raise SgrKitError(
                f"notebook {text!r}: expected one of {', '.join(p.stem for p in shipped)} (or its number, e.g. 01)"
            )
        out.append(matches[0])
    if len({p.stem for p in out}) != len(out):
        raise SgrKitError(f"notebooks: a notebook is named twice in {', '.join(map(str, notebooks))}")
    return out


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _input_records(role: str, sources: Sequence[str | os.PathLike] | None) -> list[dict[str, str]]:
    records = []
    for source in sources or ():
        path = Path(source)
        if path.is_file():
            records.append({"role": role, "path": str(source), "sha256": _sha256(path)})
        elif path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                records.append({"role": role, "path": str(file), "sha256": _sha256(file)})
        else:  # a dataset id: named, not hashed
            records.append({"role": role, "path": str(source), "sha256": ""})
    return records


def _scoring_key(inputs: list[dict[str, str]], profile: str, strict_pairing: bool) -> str:
    scoring = [(r["role"], Path(r["path"]).name, r["sha256"] or r["path"]) for r in inputs
               if r["role"] in ("tasks", "runs", "rules", "pairing")]
    text = json.dumps({"inputs": scoring, "profile": profile, "strict_pairing": strict_pairing,
                       "sgr_kit": __version__}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _previous_scores(out: Path, key: str) -> tuple[Path, Path] | None:
    """The previous report's scores and cells when they were scored from the same inputs."""
    try:
        provenance = json.loads((out / "provenance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    scores, cells = out / "scores.csv", out / "cells.parquet"
    if provenance.get("scoring", {}).get("key") == key and scores.is_file() and cells.is_file():
        return scores, cells
    return None


def _versions() -> dict[str, str]:
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def _install(building: Path, out: Path) -> None:
    """Move the complete report into place, replacing the previous one."""
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.previous-", dir=out.parent))
        os.rename(out, old / out.name)
        os.rename(building, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(building, out)


def build_report(
    tasks: Sequence[str | os.PathLike] | None,
    runs: Sequence[str | os.PathLike] | None,
    out_dir: str | os.PathLike,
    *,
    audit_labels: str | os.PathLike | None = None,
    profile: str = "paper",
    failure_policy: str = "zero",
    rules: str | os.PathLike | None = None,
    pairing: str | os.PathLike | None = None,
    strict_pairing: bool = False,
    notebooks: Sequence[str | os.PathLike] = NOTEBOOKS,
    parameters: Mapping[str, Any] | None = None,
    workers: int | None = None,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    command: str = "",
    trajectories: str | os.PathLike | None = None,
) -> ReportResult:
    """Score ``runs`` against ``tasks`` once and build the report in ``out_dir`` (see the module docstring).

    Parameters
    ----------
    tasks, runs : list of paths, or None
        Neither: the SYNTHETIC demo benchmark shipped with the package, with its audit labels.
    out_dir : path
        The report folder.
    audit_labels : path, optional
        Audit labels (``system, task_id, label``) for the error-profile notebook.
    profile, failure_policy, rules, pairing, strict_pairing
        Scoring and aggregation options, as ``sgr-kit score`` and ``sgr-kit summary``.
    notebooks : sequence of str or path, default :data:`NOTEBOOKS`
        Names, numbers (``"01"``) or paths of notebooks to run.
    parameters : mapping, optional
        More notebook parameters (``-p NAME VALUE``); each must be defined by some notebook's
        ``parameters`` cell and is passed to the notebooks that define it.
    workers : int, optional
        Worker processes for the notebooks (default: the machine's cores).
    force : bool, default False
        Replace an existing report.
    progress : bool, default True
        Show the scoring progress bar.
    log : callable, optional
        Receives one line per step (each notebook with its time); None: silent.
    command : str, optional
        The command line, for the provenance.
    trajectories : path, optional
        Trajectories (:mod:`sgr_kit.trajectories`) for the site-reach page; they stand in for
        ``runs`` when no runs are given. The demo report uses the demo's.

    Returns
    -------
    ReportResult
        ``.ok`` is False when a notebook failed (its page shows the failing cell).

    Raises
    ------
    SgrKitError
        For bad input (before anything is written): a report folder that is a file, a
        non-empty folder without ``force``, unknown notebooks or parameters, unreadable
        task or run files.
    """
    from ..pipeline import load_inputs, score_files
    from ..reference import audit
    from .index import write_index
    from .summary import format_summary

    say = log or (lambda line: None)
    check_profile(profile)
    check_failure_policy(failure_policy)
    runs = runs or ([str(trajectories)] if trajectories else None)  # trajectories hold the final answers
    if not tasks and not runs:
        demo = demo_paths()
        tasks, runs = [str(demo["constraint"]), str(demo["goal"])], [str(demo["runs"])]
        audit_labels = audit_labels or str(demo["audit"])
        trajectories = str(demo["trajectories"])
    elif not tasks or not runs:
        raise SgrKitError("report: give both --tasks and --runs, or neither to build the demo report")
    out = Path(out_dir).absolute()
    if out.exists() and not out.is_dir():
        raise SgrKitError(f"report folder {out_dir} is an existing file; expected a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise SgrKitError(f"report folder {out_dir} is not empty; pass --force to replace the report in it")
    sources = _resolve_notebooks(notebooks)
    parameters = dict(parameters or {})
    reserved = {"scores_path", "cells_path", "audit_path", "output_dir", "tasks_paths", "runs_path", "profile",
                "trajectories_path", "site_tasks_paths"}
    clash = sorted(reserved & set(parameters))
    if clash:
        raise SgrKitError(f"-p {', '.join(clash)}: set by the report build itself; use --tasks/--runs/--audit/"
                          f"--profile/--out instead")
    known = check_parameters(parameters, sources)
    if audit_labels is not None and not Path(audit_labels).is_file():
        raise SgrKitError(f"audit file {audit_labels} does not exist; expected a CSV with system, task_id, label")
    workers = max(1, int(workers or os.cpu_count() or 1))

    out.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    restore = _interrupt_on_sigterm()
    try:
        inputs = (_input_records("tasks", tasks) + _input_records("runs", runs)
                  + _input_records("rules", [rules] if rules else []) + _input_records("pairing", [pairing] if pairing else [])
                  + _input_records("audit", [audit_labels] if audit_labels else [])
                  + _input_records("trajectories", [trajectories] if trajectories else []))
        key = _scoring_key(inputs, profile, strict_pairing)
        start = time.perf_counter()
        previous = _previous_scores(out, key) if force else None
        if previous is not None:
            shutil.copyfile(previous[0], building / "scores.csv")
            shutil.copyfile(previous[1], building / "cells.parquet")
            say("scores: reused from the previous report (same inputs, profile and version)")
        else:
            _, _, (scores, cells) = score_files(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                                strict_pairing=strict_pairing, progress=progress)
            write_table(scores, building / "scores.csv")
            write_table(cells, building / "cells.parquet")
            say(f"scores: {len(scores)} answers scored in {time.perf_counter() - start:.1f} s")
        scoring_seconds = time.perf_counter() - start
        loaded = load_inputs(scores=building / "scores.csv", cells=building / "cells.parquet",
                             audit=audit_labels)
        if audit_labels is not None:
            shutil.copyfile(audit_labels, building / "audit-labels.csv")
        write_table(audit(), building / "paper-audit.csv")
        write_text(format_summary(loaded.scores, failure_policy=failure_policy) + "\n", building / "summary.txt")

        given = {
            "scores_path": str(building / "scores.csv"), "cells_path": str(building / "cells.parquet"),
            "audit_path": str(building / "audit-labels.csv") if audit_labels is not None else None,
            "failure_policy": failure_policy, "output_dir": str(building), **parameters,
            # absolute: the notebooks run inside the report folder
            "trajectories_path": str(Path(trajectories).absolute()) if trajectories else None,
            "site_tasks_paths": [str(Path(t).absolute()) if Path(t).exists() else str(t) for t in tasks]
            if trajectories else None,
        }
        jobs = [(str(src), src.stem, str(building), {k: v for k, v in given.items() if k in known[src.stem]})
                for src in sources]
        runs_done = _run_all(jobs, workers, say)
        runs_done.sort(key=lambda r: [s.stem for s in sources].index(r.name))
        provenance = {
            "sgr_kit": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
            "libraries": _versions(), "command": command,
            "inputs": inputs,
            "scoring": {"profile": profile, "strict_pairing": strict_pairing, "key": key,
                        "reused": previous is not None, "seconds": round(scoring_seconds, 3)},
            "parameters": {k: v for k, v in given.items() if k not in ("output_dir",)},
            "notebooks": [{"name": r.name, "status": "ok" if r.ok else "failed", "seconds": round(r.seconds, 3),
                           "error": r.error} for r in runs_done],
            "workers": workers, "synthetic": loaded.synthetic,
        }
        write_text(json.dumps(provenance, indent=2, default=str) + "\n", building / "provenance.json")
        write_index(building, loaded, runs_done, failure_policy=failure_policy,
                    n_boot=int(parameters.get("n_boot", 10_000)), seed=int(parameters.get("seed", 0)),
                    key_figures=KEY_FIGURES)
        _install(building, out)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    finally:
        restore()
    files = sorted(p for p in out.rglob("*") if p.is_file())
    return ReportResult(out, files, runs_done, previous is not None, loaded.synthetic)


def _interrupt_on_sigterm() -> Callable[[], None]:
    """While a report builds, SIGTERM (a kill) interrupts it like Ctrl-C, so its temporary folder is removed."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _run_all(jobs: list[tuple[str, str, str, dict]], workers: int, say: Callable[[str], None]) -> list[NotebookRun]:
    """Run the notebooks, ``workers`` at a time, reporting each as it ends."""
    done: list[NotebookRun] = []

    def report(run: NotebookRun) -> None:
        done.append(run)
        status = "ok" if run.ok else f"FAILED: {run.error}"
        say(f"{run.name:<28} {run.seconds:6.1f} s  {status}")

    import multiprocessing

    pool = multiprocessing.get_context("spawn").Pool(min(workers, len(jobs)), initializer=_quiet_worker)
    try:
        for run in pool.imap_unordered(_execute, jobs):
            report(run)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return done
