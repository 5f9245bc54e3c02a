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
- notebooks run with papermill, one per core at a time, in kernels the build keeps and restores
  between pages (:mod:`sgr_kit.report.kernels`); every
  ``-p NAME VALUE`` must be defined by a notebook's ``parameters`` cell, and values are
  passed as data (plain YAML scalars or flat lists), never executed, each checked against
  :data:`~sgr_kit.report.parameters.PARAMETERS` before anything is written;
- one set of analysis parameters is used by every page and by the index and recorded in
  ``provenance.json``; the notebooks get paths relative to the report folder, so a saved
  notebook runs again (``papermill NB.ipynb out.ipynb --cwd REPORT``);
- a failing notebook is reported with its name and failing cell; the other notebooks still
  build, the index marks the failure, and the build reports failure (non-zero exit status);
- the report is built in a temporary folder beside ``out_dir`` and moved into place only when
  complete, so an interrupted or crashed build leaves the previous report as it was (the
  notebooks' kernels are stopped before the temporary folder is removed); an existing
  report is replaced only with ``force=True``, and only when it is an sgr-kit report
  (:func:`check_report_folder`); a folder holding an input is never replaced; rebuilding a
  subset of the notebooks keeps the other pages when they used the same scores and
  parameters;
- every page opens offline: nothing is loaded from outside the report folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import queue
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
from ..text import NAME_WIDTH, short_label, visible, visible_repr
from .folder import (REPORT_KIND, check_report_folder, copy_report, install_report, read_provenance, remove_folder,
                     report_files)
from .notebook import keep_parameters
from .parameters import ANALYSIS, PARAMETERS, RESERVED, check_parameters_values, parse_parameter

__all__ = ["NOTEBOOKS", "NotebookRun", "ReportResult", "ReportPlan", "notebook_parameters", "check_parameters",
           "check_report_folder", "parse_parameter", "plan_report", "run_notebook", "export_html", "build_report"]

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


def skip_iri_grammar() -> None:
    """Keep jsonschema from compiling its IRI grammar in this process (about 1.2 s of processor time).

    papermill and nbconvert import nbformat, which imports jsonschema, whose format checker
    imports ``rfc3987_syntax`` when it is installed (it is, through ``jsonschema[format-nongpl]``);
    that package builds some 35 Earley parsers as it is imported (python-jsonschema/jsonschema
    issue 1428). No notebook schema uses the ``iri`` formats, so the processes sgr-kit owns
    (the ``sgr-kit report`` command, never a user's kernel) mark the module as
    absent before their first import of nbformat; jsonschema then leaves the ``iri`` formats
    unchecked, as it does wherever the package is not installed. Once jsonschema's format
    checker is imported this does nothing.
    """
    if "jsonschema._format" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  (None: "import fails")


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


def check_parameters(parameters: Mapping[str, Any], notebooks: Sequence[Path]) -> dict[str, set[str]]:
    """Refuse a parameter no notebook defines; return each notebook's parameter names.

    Raises
    ------
    SgrKitError
        Naming the unknown parameter(s) and listing the accepted ones (never the ones the
        report build sets itself, :data:`~sgr_kit.report.parameters.RESERVED`).
    """
    known = {path.stem: set(notebook_parameters(path)) for path in notebooks}
    accepted = (set().union(*known.values()) if known else set()) - set(RESERVED)
    unknown = sorted(set(parameters) - accepted)
    if unknown:
        raise SgrKitError(
            f"unknown notebook parameter(s) {', '.join(unknown)}; -p takes what the notebooks' parameters cells "
            f"define and the build does not set itself: "
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
        raise SgrKitError(_failed_cell(exc, notebook, out)) from None
    return out


def _failed_cell(exc: Any, notebook: str | os.PathLike, executed: Path) -> str:
    """What a papermill execution error says: the notebook, the cell, the error, and where the executed copy is."""
    return (f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
            f"(the executed copy with the failing cell is {executed.name})")


def export_html(executed: str | os.PathLike, html: str | os.PathLike, *, long_names: Sequence[str] = ()) -> Path:
    """Convert an executed notebook to a standalone HTML page that loads nothing from the network.

    Code cells are hidden; the page uses the ``sgr_offline`` template (JupyterLab's
    look without the CDN scripts for require.js, MathJax, Mermaid and widgets). Control
    characters, ANSI escapes and direction controls in what a cell printed or displayed (a
    system name, an answer) are shown as markers (:func:`sgr_kit.text.visible`); a failing
    cell's traceback keeps its colours. Each of ``long_names`` (names from data longer than
    :data:`sgr_kit.text.NAME_WIDTH`) is shown cut with an ellipsis wherever a cell printed it.
    """
    import html as markup

    import nbformat

    exporter = _exporter()

    cuts = []
    for name in sorted(set(long_names), key=len, reverse=True):
        short = short_label(name, width=NAME_WIDTH)
        cuts += [(name, short), (markup.escape(name, quote=False), markup.escape(short, quote=False)),
                 (markup.escape(name), markup.escape(short))]

    def shown(text: str) -> str:
        for name, short in cuts:
            text = text.replace(name, short)
        return visible(text)

    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:  # names printed or shown by a cell: cut, control characters and ANSI escapes made visible
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output["text"] = shown(output.get("text", ""))
            elif output.get("output_type") in ("display_data", "execute_result"):
                data = output.get("data", {})
                for kind in ("text/plain", "text/html", "text/markdown"):
                    if isinstance(data.get(kind), str):
                        data[kind] = shown(data[kind])
    body, _ = exporter.from_notebook_node(nb)
    return write_text(body, html, force=True)


_EXPORTER: list = []


def _exporter():
    """The HTML exporter, built once per process (loading its templates costs more than a page's export)."""
    if not _EXPORTER:
        from nbconvert import HTMLExporter

        exporter = HTMLExporter(template_name="sgr_offline", extra_template_basedirs=[str(templates_dir())])
        exporter.exclude_input = True
        exporter.exclude_input_prompt = True
        exporter.exclude_output_prompt = True
        _EXPORTER.append(exporter)
    return _EXPORTER[0]


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


class _PageRunner:
    """The kernel one page thread keeps, and how it hands a kernel to each page.

    The report's own pages share the kept kernel, made as fresh as a new kernel before each
    (:mod:`sgr_kit.report.kernels`); it is kept for the next page only when a page succeeded
    (after a failure it might be left in any state, so the next page gets a new one). Any
    other notebook (a user's ``--notebooks PATH``) gets a kernel of its own, started for it
    and stopped after it, as papermill would.
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.kept = None

    def start(self) -> None:
        """Start the kept kernel now (its imports run while the build scores); a failure waits for the first page."""
        from .kernels import PageKernel

        try:
            self.kept = PageKernel(self.folder)
        except Exception:
            self.kept = None

    def kernel_for(self, own: bool):
        from .kernels import PageKernel

        if not own:
            return PageKernel(self.folder, warm=False)
        kernel, self.kept = self.kept, None
        if kernel is not None:
            try:
                if kernel.alive():
                    kernel.fresh()
                    return kernel
            except Exception:  # not restored in time, or gone: replaced below
                pass
            kernel.stop()
        kernel = PageKernel(self.folder)
        kernel.ready()
        return kernel

    def done_with(self, kernel, own: bool, ok: bool) -> None:
        kernel.close_clients()  # papermill leaves its client open on a kernel it did not start
        if own and ok:
            self.kept = kernel
        else:
            kernel.stop()

    def stop(self) -> None:
        if self.kept is not None:
            self.kept.stop()
            self.kept = None


_EXPORT = threading.Lock()  # one HTML exporter, used by one page thread at a time


def _execute(job: tuple[str, str, str, dict, tuple[str, ...]], runner: _PageRunner,
             stopping: threading.Event) -> NotebookRun:
    """Run one notebook with papermill and export its page (in a page thread); never raises."""
    import papermill

    source, name, folder, parameters, long_names = job
    own = Path(source).parent == notebooks_dir()
    start = time.perf_counter()
    executed = Path(folder) / f"{name}.ipynb"
    error = ""
    kernel = None
    try:
        kernel = runner.kernel_for(own)
        # no cwd: the kernel already runs in the build folder, and papermill's cwd changes the
        # whole process's working directory, which two page threads must not do
        papermill.execute_notebook(source, str(executed), parameters=parameters, kernel_name="python3",
                                   progress_bar=False, log_output=False, km=kernel.km)
    except papermill.PapermillExecutionError as exc:
        error = _failed_cell(exc, source, executed)
    except Exception as exc:  # a kernel that dies or cannot start is a failed notebook, not a crashed build
        error = f"notebook {name} could not run: {type(exc).__name__}: {exc}"
    finally:
        if kernel is not None:
            runner.done_with(kernel, own, not error)
    if executed.is_file() and not stopping.is_set():
        try:
            _relative_metadata(executed, source)
            keep_parameters(executed)  # the saved page's parameters cell holds this report's values
            with _EXPORT:
                export_html(executed, Path(folder) / f"{name}.html", long_names=long_names)
        except Exception as exc:
            error = error or f"page {name} could not be written: {type(exc).__name__}: {exc}"
    return NotebookRun(name, not error, time.perf_counter() - start, error)


def _relative_metadata(executed: Path, source: str) -> None:
    """Papermill records where it read and wrote the notebook: keep names, never the build folder."""
    import nbformat

    nb = nbformat.read(str(executed), as_version=4)
    meta = nb.metadata.get("papermill")
    if meta is None:
        return
    meta["input_path"] = Path(source).name
    meta["output_path"] = executed.name
    write_text(nbformat.writes(nb), executed, force=True)


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


def _scoring_key(inputs: list[dict[str, str]], profile: str, strict_pairing: bool, language: str = "en") -> str:
    scoring = [(r["role"], Path(r["path"]).name, r["sha256"] or r["path"]) for r in inputs
               if r["role"] in ("tasks", "runs", "rules", "pairing")]
    text = json.dumps({"inputs": scoring, "profile": profile, "strict_pairing": strict_pairing,
                       "sgr_kit": __version__, **({} if language == "en" else {"language": language})}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _previous_scores(out: Path, key: str) -> tuple[Path, Path] | None:
    """The previous report's scores and cells when they were scored from the same inputs."""
    provenance = read_provenance(out) or {}
    scores, cells = out / "scores.csv", out / "cells.parquet"
    scoring = provenance.get("scoring")
    if isinstance(scoring, dict) and scoring.get("key") == key and scores.is_file() and cells.is_file():
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


@dataclass
class ReportPlan:
    """Everything :func:`build_report` checked before it writes anything (see :func:`plan_report`)."""

    out: Path
    tasks: list[str]
    runs: list[str]
    audit_labels: str | None
    sources: list[Path]
    known: dict[str, set[str]]
    analysis: dict[str, Any]
    given: dict[str, Any]
    label_files: list[str] = field(default_factory=list)
    trajectories: str | None = None

    def jobs(self, folder: str | os.PathLike, *, long_names: Sequence[str] = ()) -> list[tuple]:
        """One job per notebook: (notebook, name, folder, the parameters papermill injects, long names to cut)."""
        return [(str(src), src.stem, str(folder), {k: v for k, v in self.given.items() if k in self.known[src.stem]},
                 tuple(long_names)) for src in self.sources]


def plan_report(
    tasks: Sequence[str | os.PathLike] | None,
    runs: Sequence[str | os.PathLike] | None,
    out_dir: str | os.PathLike,
    *,
    audit_labels: str | os.PathLike | None = None,
    label_files: Sequence[str | os.PathLike] | None = None,
    profile: str = "paper",
    failure_policy: str | None = None,
    rules: str | os.PathLike | None = None,
    pairing: str | os.PathLike | None = None,
    notebooks: Sequence[str | os.PathLike] = NOTEBOOKS,
    parameters: Mapping[str, Any] | None = None,
    force: bool = False,
    trajectories: str | os.PathLike | None = None,
) -> ReportPlan:
    """Check every option of a report build, and write nothing (:func:`build_report` calls it first).

    The analysis parameters (:data:`~sgr_kit.report.parameters.ANALYSIS`) are read once here:
    ``failure_policy`` from ``failure_policy`` or ``parameters`` (the two must agree), every
    value checked against what its notebook accepts, the rest from the notebooks' defaults.
    The notebooks get paths inside the report folder, relative to it (``scores.csv``), so a
    saved notebook runs again with papermill (``--cwd`` the report folder).

    Raises
    ------
    SgrKitError
        For any bad option, naming it (see :func:`check_report_folder` for the folder).
    """
    check_profile(profile)
    parameters = check_parameters_values(dict(parameters or {}))
    if failure_policy is not None:
        check_failure_policy(failure_policy)
        if "failure_policy" in parameters and parameters["failure_policy"] != failure_policy:
            raise SgrKitError(f"--failure-policy {failure_policy} and -p failure_policy "
                              f"{parameters['failure_policy']} disagree; give the failure policy once")
        parameters["failure_policy"] = failure_policy
    runs = runs or ([str(trajectories)] if trajectories else None)  # trajectories hold the final answers
    if not tasks and not runs:
        demo = demo_paths()
        tasks, runs = [str(demo["constraint"]), str(demo["goal"])], [str(demo["runs"])]
        audit_labels = audit_labels or str(demo["audit"])
        trajectories = str(demo["trajectories"])
    elif not tasks or not runs:
        raise SgrKitError("report: give both --tasks and --runs, or neither to build the demo report")
    label_files = [str(f) for f in label_files or ()]
    sources = _resolve_notebooks(notebooks)
    user_notebooks = [str(p) for p in sources if p.parent.resolve() != notebooks_dir().resolve()]
    inputs = [*tasks, *runs, *(x for x in (audit_labels, rules, pairing, trajectories) if x), *label_files,
              *user_notebooks]
    out = check_report_folder(out_dir, force=force, inputs=inputs)
    known = check_parameters(parameters, sources)
    if audit_labels is not None and not Path(audit_labels).is_file():
        raise SgrKitError(f"audit file {audit_labels} does not exist; expected a CSV with system, task_id, label")
    for label_file in label_files:
        if not Path(label_file).is_file():
            raise SgrKitError(f"label file {label_file} does not exist; expected an annotator's label CSV")
    if trajectories is not None and not Path(trajectories).exists():
        raise SgrKitError(f"trajectories {trajectories} do not exist; expected a JSONL file or a folder")
    analysis = {name: parameters.get(name, PARAMETERS[name].default) for name in ANALYSIS}
    given = {"scores_path": "scores.csv", "cells_path": "cells.parquet",
             "audit_path": "audit-labels.csv" if audit_labels is not None else None, "output_dir": ".",
             "label_paths": [f"labels-{i}.csv" for i in range(1, len(label_files) + 1)] or None,
             "site_reach_path": "site-reach.csv" if trajectories is not None else None,
             "profile": profile, **analysis}
    return ReportPlan(out, [str(t) for t in tasks], [str(r) for r in runs],
                      None if audit_labels is None else str(audit_labels), sources, known, analysis, given,
                      label_files, None if trajectories is None else str(trajectories))


def _kept_pages(out: Path, key: str, plan: ReportPlan, say: Callable[[str], None]) -> list[NotebookRun]:
    """Pages of the previous report that a subset rebuild keeps (same scores and analysis parameters)."""
    provenance = read_provenance(out) or {}
    rebuilt = {src.stem for src in plan.sources}
    previous = [n for n in provenance.get("notebooks", []) if isinstance(n, dict) and n.get("name") not in rebuilt]
    if not previous:
        return []
    same = (provenance.get("scoring", {}).get("key") == key
            and provenance.get("analysis") == json.loads(json.dumps(plan.analysis)))
    if not same:
        say(f"pages {', '.join(str(n.get('name')) for n in previous)} of the previous report were built from other "
            f"scores or parameters: not kept (rebuild them with --notebooks)")
        return []
    return [NotebookRun(str(n["name"]), n.get("status") == "ok", float(n.get("seconds", 0.0)), str(n.get("error", "")))
            for n in previous if (out / f"{n['name']}.html").is_file()]


def _check_systems(systems: list[str] | None, scores: pd.DataFrame) -> None:
    if systems is None:
        return
    known = [str(s) for s in scores["system"].unique()]
    unknown = [s for s in systems if s not in known]
    if unknown:
        hint = ""
        if any(s[:1] in "\"'[" or s[-1:] in "\"']" for s in unknown):
            hint = (" (quotes or brackets are part of these names as given: write the list as YAML, "
                    "-p systems '[A, B]', and through papermill with -y 'systems: [A, B]')")
        raise SgrKitError(f"-p systems: {', '.join(map(visible_repr, unknown))} not in the scores table{hint}; "
                          f"it has {', '.join(map(visible_repr, known))}")


def build_report(
    tasks: Sequence[str | os.PathLike] | None,
    runs: Sequence[str | os.PathLike] | None,
    out_dir: str | os.PathLike,
    *,
    audit_labels: str | os.PathLike | None = None,
    label_files: Sequence[str | os.PathLike] | None = None,
    profile: str = "paper",
    failure_policy: str | None = None,
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
    language: str = "en",
) -> ReportResult:
    """Score ``runs`` against ``tasks`` once and build the report in ``out_dir`` (see the module docstring).

    Parameters
    ----------
    tasks, runs : list of paths, or None
        Neither: the SYNTHETIC demo benchmark shipped with the package, with its audit labels.
    out_dir : path
        The report folder: new, empty, or (with ``force``) an sgr-kit report.
    audit_labels : path, optional
        Audit labels (``system, task_id, label``) for the error-profile notebook.
    label_files : list of paths, optional
        Two or more annotators' label files: the error-profile notebook shows their agreement
        (copied into the report as ``labels-N.csv``).
    profile, rules, pairing, strict_pairing
        Scoring options, as ``sgr-kit score``.
    failure_policy : {"zero", "exclude"}, optional
        How failed answers enter means, on every page and the index; the same as
        ``parameters["failure_policy"]`` (giving both with different values is an error).
        Default ``"zero"``.
    notebooks : sequence of str or path, default :data:`NOTEBOOKS`
        Names, numbers (``"01"``) or paths of notebooks to run. With ``force``, the other pages
        of the existing report are kept when they were built from the same scores and
        analysis parameters.
    parameters : mapping, optional
        More notebook parameters (``-p NAME VALUE``), checked by
        :func:`~sgr_kit.report.parameters.check_parameters_values` before anything is written.
    workers : int, optional
        Notebooks run at once, each page thread with a kernel of its own (default: the machine's cores).
    force : bool, default False
        Replace an existing report (only a report: see :func:`check_report_folder`).
    progress : bool, default True
        Show the scoring progress bar.
    log : callable, optional
        Receives one line per step (each notebook with its time); None: silent.
    command : str, optional
        The command line, for the provenance.
    trajectories : path, optional
        Trajectories (:mod:`sgr_kit.trajectories`) for the site-reach page; they stand in for
        ``runs`` when no runs are given. The demo report uses the demo's.
    language : {"en", "zh"}, default "en"
        The language of answers that name none, as ``sgr-kit score --language``.

    Returns
    -------
    ReportResult
        ``.ok`` is False when a notebook failed (its page shows the failing cell).

    Raises
    ------
    SgrKitError
        For bad input (before anything is written): a report folder that is a file, a
        non-empty folder without ``force``, a folder that is no report, a folder holding an
        input, unknown notebooks or parameters, bad parameter values, unreadable task or run
        files, a report folder that cannot be written.
    """
    from ..pipeline import load_inputs, score_files
    from ..prepare import load_tasks
    from ..prepare.release import task_fingerprint
    from ..reference import audit
    from .index import write_index
    from .summary import format_summary

    say = log or (lambda line: None)
    plan = plan_report(tasks, runs, out_dir, audit_labels=audit_labels, label_files=label_files, profile=profile,
                       failure_policy=failure_policy, rules=rules, pairing=pairing, notebooks=notebooks,
                       parameters=parameters, force=force, trajectories=trajectories)
    out, tasks, runs, audit_labels = plan.out, plan.tasks, plan.runs, plan.audit_labels
    label_files, trajectories = plan.label_files, plan.trajectories
    analysis = plan.analysis
    workers = max(1, int(workers or os.cpu_count() or 1))

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    except OSError as exc:
        raise SgrKitError(f"report folder {out_dir}: cannot write in {out.parent} ({exc.strerror})") from None
    restore = _interrupt_on_sigterm()
    pool = None
    try:
        previous_seconds = {str(n.get("name")): n["seconds"] for n in (read_provenance(out) or {}).get("notebooks", [])
                            if isinstance(n, dict) and isinstance(n.get("seconds"), (int, float))}
        if plan.sources:
            pool = _Pages(min(workers, len(plan.sources)), building)
        inputs = (_input_records("tasks", tasks) + _input_records("runs", runs)
                  + _input_records("rules", [rules] if rules else []) + _input_records("pairing", [pairing] if pairing else [])
                  + _input_records("audit", [audit_labels] if audit_labels else [])
                  + _input_records("labels", list(label_files))
                  + _input_records("trajectories", [trajectories] if trajectories else []))
        key = _scoring_key(inputs, profile, strict_pairing, language)
        start = time.perf_counter()
        previous = _previous_scores(out, key) if force else None
        task_set = None
        kept = _kept_pages(out, key, plan, say) if force and previous is not None else []
        if kept:
            copy_report(out, building)
        if previous is not None:
            if not kept:
                shutil.copyfile(previous[0], building / "scores.csv")
                shutil.copyfile(previous[1], building / "cells.parquet")
            say("scores: reused from the previous report (same inputs, profile and version)")
            fingerprint = json.loads((out / "provenance.json").read_text(encoding="utf-8"))["scoring"].get(
                "tasks_fingerprint", "")
        else:
            task_set, _, (scores, cells) = score_files(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                                       strict_pairing=strict_pairing, progress=progress,
                                                       language=language)
            fingerprint = task_fingerprint(task_set)
            write_table(scores, building / "scores.csv")
            write_table(cells, building / "cells.parquet")
            say(f"scores: {len(scores)} answers scored in {time.perf_counter() - start:.1f} s")
        scoring_seconds = time.perf_counter() - start
        loaded = load_inputs(scores=building / "scores.csv", cells=building / "cells.parquet",
                             audit=audit_labels)
        _check_systems(analysis["systems"], loaded.scores)
        if audit_labels is not None:
            shutil.copyfile(audit_labels, building / "audit-labels.csv")
        for i, label_file in enumerate(label_files, 1):
            shutil.copyfile(label_file, building / f"labels-{i}.csv")
        if trajectories is not None:  # per-answer site reach, computed once and kept in the report
            from ..trajectories import site_reach

            sites = task_set if task_set is not None else load_tasks(*tasks, language=language)
            write_table(site_reach(trajectories, sites), building / "site-reach.csv", force=True)
        write_table(audit(), building / "paper-audit.csv", force=True)
        shown = _subset(loaded.scores, analysis["systems"])
        write_text(format_summary(shown, failure_policy=analysis["failure_policy"]) + "\n", building / "summary.txt",
                   force=True)

        names = [*loaded.scores["system"].astype(str).unique(), *loaded.scores["task_id"].astype(str).unique()]
        long_names = [n for n in names if len(n) > NAME_WIDTH]
        jobs = _slowest_first(plan.jobs(building, long_names=long_names), previous_seconds)
        runs_done = pool.run(jobs, say) if pool is not None else []
        order = [*NOTEBOOKS, *(s.stem for s in plan.sources if s.stem not in NOTEBOOKS)]
        runs_done = sorted(kept + runs_done, key=lambda r: (order.index(r.name) if r.name in order else len(order),
                                                            r.name))
        write_index(building, loaded, runs_done, failure_policy=analysis["failure_policy"],
                    n_boot=analysis["n_boot"], seed=analysis["seed"], systems=analysis["systems"],
                    alpha=analysis["alpha"], key_figures=KEY_FIGURES,
                    main_table=_main_table(building, runs_done, shown))
        provenance = {
            "report": REPORT_KIND,
            "sgr_kit": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
            "libraries": _versions(), "command": command,
            "inputs": inputs,
            "scoring": {"profile": profile, "strict_pairing": strict_pairing, "key": key, "language": language,
                        "tasks_fingerprint": fingerprint,
                        "reused": previous is not None, "seconds": round(scoring_seconds, 3)},
            "analysis": analysis,
            "parameters": {k: v for k, v in plan.given.items()},
            "notebooks": [{"name": r.name, "status": "ok" if r.ok else "failed", "seconds": round(r.seconds, 3),
                           "error": r.error, "kept": r in kept} for r in runs_done],
            "workers": workers, "synthetic": loaded.synthetic,
            "rerun": "papermill <notebook>.ipynb <copy>.ipynb --cwd <this folder> (paths are relative to it)",
        }
        provenance["files"] = sorted(set(report_files(building)) | {"provenance.json"})
        write_text(json.dumps(provenance, indent=2, default=str) + "\n", building / "provenance.json", force=True)
        install_report(building, out)
    except BaseException:
        if pool is not None:
            pool.stop()
        remove_folder(building)
        raise
    finally:
        restore()
    files = sorted(p for p in out.rglob("*") if p.is_file())
    return ReportResult(out, files, runs_done, previous is not None, loaded.synthetic)


def _main_table(folder: Path, runs: Sequence[NotebookRun], scores: pd.DataFrame) -> pd.DataFrame | None:
    """The main-table page's saved table when that page built with this build's scores and parameters, else None.

    The index shares its per-system means and intervals instead of bootstrapping them again
    (read back exactly: floats round-trip, names as text).
    """
    if not any(run.name == "01_main_table" and run.ok for run in runs):
        return None
    try:
        table = pd.read_csv(folder / "tables" / "main_table.csv", engine="python",
                            dtype={"system": str, "variant": str}, keep_default_na=False, na_values=[""])
    except (OSError, ValueError):
        return None
    from ..schema import METRICS

    needed = {"system", "variant", "n_tasks", "n_failed",
              *(f"{pre}{m}{post}" for m in METRICS for pre, post in (("", ""), ("", "_ci_low"), ("", "_ci_high"),
                                                                     ("paper_", "")))}
    if not needed <= set(table.columns) or sorted(table.loc[table["variant"] == "overall", "system"]) != sorted(
            map(str, scores["system"].unique())):
        return None
    return table


def _subset(scores: pd.DataFrame, systems: list[str] | None) -> pd.DataFrame:
    return scores if systems is None else scores[scores["system"].isin(systems)].reset_index(drop=True)


def _interrupt_on_sigterm() -> Callable[[], None]:
    """While a report builds, SIGTERM interrupts it like Ctrl-C, so its temporary folder is removed.

    When the caller (the command line) already handles SIGTERM, its handler stays: the
    command line exits with status 143 for SIGTERM and 130 for Ctrl-C.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    if signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        return lambda: None

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)


class _Pages:
    """The report's notebooks, run by ``n`` threads of the build, each driving one kernel.

    Created as the build starts: each thread starts its kernel right away and sends it the
    pages' imports (:mod:`sgr_kit.report.kernels`), so that they run while the build scores;
    the threads then take pages from a queue, slowest first. papermill and nbconvert run in
    the build's own process: no worker processes to start, none importing them again.
    :meth:`stop` (an interrupted build) kills every kernel the build started and waits for
    the threads before the build folder is removed.
    """

    def __init__(self, n: int, folder: Path) -> None:
        import psutil

        self.before = {child.pid for child in psutil.Process().children(recursive=True)}
        self.jobs: queue.Queue = queue.Queue()
        self.done: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._work, args=(_PageRunner(str(folder)),), daemon=True,
                                         name=f"sgr-kit page thread {i + 1}") for i in range(n)]
        for thread in self.threads:
            thread.start()
        _exporter()  # loads nbconvert's templates while the kernels start

    def _work(self, runner: _PageRunner) -> None:
        try:
            runner.start()
            while not self.stopping.is_set():
                job = self.jobs.get()
                if job is None:
                    break
                self.done.put(_execute(job, runner, self.stopping))
        finally:
            runner.stop()

    def run(self, jobs: list[tuple], say: Callable[[str], None]) -> list[NotebookRun]:
        """Run the notebooks (``jobs`` in the order to start them), reporting each as it ends."""
        for job in jobs:
            self.jobs.put(job)
        for _ in self.threads:
            self.jobs.put(None)
        done: list[NotebookRun] = []
        while len(done) < len(jobs):
            try:
                run = self.done.get(timeout=0.5)
            except queue.Empty:
                if not any(thread.is_alive() for thread in self.threads) and self.done.empty():
                    raise SgrKitError(f"report build: the page threads ended after {len(done)} of {len(jobs)} "
                                      f"notebooks; this is a bug in sgr-kit") from None
                continue
            done.append(run)
            status = "ok" if run.ok else f"FAILED: {run.error}"
            say(f"{run.name:<28} {run.seconds:6.1f} s  {status}")
        for thread in self.threads:
            thread.join()
        return done

    def stop(self) -> None:
        """Kill every kernel the build started (and what they started), then wait a little for the threads."""
        import psutil

        self.stopping.set()
        procs = [child for child in psutil.Process().children(recursive=True) if child.pid not in self.before]
        for proc in procs:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(procs, timeout=10)
        deadline = time.monotonic() + 10
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


def _slowest_first(jobs: list[tuple], seconds: Mapping[str, float]) -> list[tuple]:
    """Jobs in longest-processing-time order: by the previous build's time of each notebook, unknown ones first."""
    return sorted(jobs, key=lambda job: -seconds.get(job[1], float("inf")))
