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
- the report folder is claimed for the whole build (:class:`~sgr_kit.report.folder.ReportClaim`,
  a lock file beside it): a second build to the same folder stops at once, naming the first;
- the report is built in a temporary folder beside ``out_dir`` and moved into place only when
  complete, so an interrupted or crashed build leaves the previous report as it was (the
  notebooks' kernels are stopped before the temporary folder is removed; further Ctrl-C
  during that cleanup wait for it to end); an existing report is replaced only with
  ``force=True``, only when it is an sgr-kit report (:func:`check_report_folder`), and only
  when it is still the folder checked at the start: if anything else sits at ``out_dir``
  when the build ends, nothing is replaced and the new report is kept beside it
  (:class:`~sgr_kit.report.folder.ReportFolderChanged` names where); a folder holding an
  input is never replaced; rebuilding a subset of the notebooks keeps the other pages when
  they used the same scores and parameters;
- every page opens offline: nothing is loaded from outside the report folder.

The parts live in modules of their own: :mod:`.plan` (the options checked, the notebooks),
:mod:`.provenance` (hashes, the scoring key, versions), :mod:`.pages` (page threads and
papermill runs), :mod:`.kernels` (the kept kernels), :mod:`.html` (the offline pages) and
:mod:`.folder` (the folder's check, claim and install); this module runs a build with them.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shlex
import shutil
import signal
import sys
import threading
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import pandas as pd

from .. import __version__
from ..errors import SgrKitError
from ..output import read_csv, write_table, write_text
from ..testing import pause
from ..text import NAME_WIDTH, visible_repr
from .folder import (REPORT_KIND, ReportClaim, ReportFolderChanged, check_report_folder, clean_leftovers, copy_report,
                     install_report, read_provenance, remove_folder, report_files)
from .html import export_html
from .pages import NotebookRun, Pages, run_notebook, slowest_first
from .parameters import parse_parameter
from .plan import NOTEBOOKS, ReportPlan, check_parameters, notebook_parameters, plan_report
from .provenance import LIBRARIES, input_records, previous_scores, scoring_key, versions

__all__ = ["NOTEBOOKS", "KEY_FIGURES", "LIBRARIES", "NotebookRun", "ReportResult", "ReportPlan", "notebook_parameters",
           "check_parameters", "check_report_folder", "parse_parameter", "plan_report", "run_notebook", "export_html",
           "build_report", "ReportFolderChanged"]

#: Figures the index page shows when the notebooks made them (``figures/<name>.png``).
KEY_FIGURES: tuple[tuple[str, str], ...] = (
    ("item_vs_row", "Item-F1 against Row-F1 per system (Figure 2a)"),
    ("constraint_vs_goal_forest", "Constraint minus goal, per system, with 95% intervals"),
    ("family_heatmaps", "Item-F1 and Row-F1 by source family (Figure 3)"),
    ("points_lost", "Where the Item-F1 points went"),
    ("site_reach", "How often the task's site was reached, and Item-F1 and Row-F1 with and without reaching it"),
    ("score_cost_frontier", "Item-F1 and Row-F1 against mean cost per task: the score-cost frontier (costs the "
                            "agents report, else priced from the report's price file)"),
)


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
    prices: str | os.PathLike | None = None,
    protocol: str | os.PathLike = "paper",
    tool_kinds: str | os.PathLike | None = None,
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
    prices : path, optional
        A price file (:func:`sgr_kit.trajectories.read_prices`) for the costs the agents do not
        report; copied into the report. The demo report uses the demo's EXAMPLE prices.
    protocol : "paper", "none" or path, default "paper"
        The protocol audit's profile (:func:`sgr_kit.trajectories.protocol.read_protocol`); a
        profile file is copied into the report; ``"none"`` turns the audit off.
    tool_kinds : path, optional
        Tool names and their kinds (:func:`sgr_kit.trajectories.read_tool_kinds`), for site
        reach, usage and the protocol audit.

    With trajectories, the build computes once, beside ``site-reach.csv``: ``usage.csv`` (one
    row per run, priced: :func:`sgr_kit.trajectories.trajectory_usage`) and, unless the audit
    is off, ``protocol-flags.csv`` (:func:`sgr_kit.trajectories.protocol_flags`).

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
                       parameters=parameters, force=force, trajectories=trajectories, prices=prices,
                       protocol=protocol, tool_kinds=tool_kinds)  # fmt: skip
    out, tasks, runs, audit_labels = plan.out, plan.tasks, plan.runs, plan.audit_labels
    label_files, trajectories = plan.label_files, plan.trajectories
    analysis = plan.analysis
    workers = max(1, int(workers or os.cpu_count() or 1))

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SgrKitError(f"report folder {out_dir}: cannot write in {out.parent} ({exc.strerror})") from None
    claim = ReportClaim(out, command=command)  # a second build to this folder stops here, naming this one
    try:
        removed, kept = clean_leftovers(claim)  # what a killed build left: its claim is ours now, so it is gone
        for folder in removed:
            say(f"removed {folder.name}, left by a build of this folder that was killed")
        for folder in kept:
            warnings.warn(f"{folder} holds the report that sat at {out} when a build was killed while installing; "
                          f"put it back with: mv {shlex.quote(str(folder / out.name))} {shlex.quote(str(out))} "
                          f"(when {out.name} is absent), or remove it: rm -r {shlex.quote(str(folder))}",
                          UserWarning, stacklevel=2)  # fmt: skip
        check_report_folder(out, force=force)  # again, now that no other build can change it
        expected = claim.check()
        building = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    except OSError as exc:
        claim.release()
        raise SgrKitError(f"report folder {out_dir}: cannot write in {out.parent} ({exc.strerror})") from None
    except BaseException:
        claim.release()
        raise
    restore = _interrupt_on_sigterm()
    pool = None
    try:
        previous_seconds = {str(n.get("name")): n["seconds"] for n in (read_provenance(out) or {}).get("notebooks", [])
                            if isinstance(n, dict) and isinstance(n.get("seconds"), (int, float))}
        if plan.sources:
            pool = Pages(min(workers, len(plan.sources)), building)
            pool.start()
        inputs = (input_records("tasks", tasks) + input_records("runs", runs)
                  + input_records("rules", [rules] if rules else [])
                  + input_records("pairing", [pairing] if pairing else [])
                  + input_records("audit", [audit_labels] if audit_labels else [])
                  + input_records("labels", list(label_files))
                  + input_records("trajectories", [trajectories] if trajectories else [])
                  + input_records("prices", [plan.prices] if plan.prices else [])
                  + input_records("protocol", [plan.protocol] if plan.protocol not in ("paper", "none") else [])
                  + input_records("tool_kinds", [plan.tool_kinds] if plan.tool_kinds else []))
        key = scoring_key(inputs, profile, strict_pairing, language)
        start = time.perf_counter()
        previous = previous_scores(out, key) if force else None
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
            pause("report-scoring")
            with warnings.catch_warnings():
                if trajectories is not None:  # their notes are said once, when they are read below
                    from ..trajectories import TrajectoryNote

                    warnings.simplefilter("ignore", TrajectoryNote)
                task_set, _, (scores, cells) = score_files(tasks, runs, profile=profile, rules=rules, pairing=pairing,
                                                           strict_pairing=strict_pairing, progress=progress,
                                                           language=language)  # fmt: skip
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
        if plan.given["prices_path"] is not None:  # the page's inputs, kept inside the report
            shutil.copyfile(plan.prices, building / plan.given["prices_path"])
        if plan.protocol not in ("paper", "none"):
            shutil.copyfile(plan.protocol, building / plan.given["protocol"])
        if trajectories is not None:  # per-answer site reach, usage and protocol flags, from one reading
            from ..trajectories import protocol_flags, read_tool_kinds, site_reach, tool_kind_sources, trajectory_usage
            from ..trajectories.match import match_trajectories, warn_unmatched
            from ..trajectories.source import read_trajectories

            kinds = read_tool_kinds(plan.tool_kinds) if plan.tool_kinds else None
            sites = task_set if task_set is not None else load_tasks(*tasks, language=language)
            read = read_trajectories(trajectories, tool_kinds=kinds, notes=lambda note: say(f"trajectories: {note}"))
            write_table(site_reach(read, sites), building / "site-reach.csv", force=True)
            write_table(tool_kind_sources(read), building / "tool-kind-sources.csv", force=True)
            usage = trajectory_usage(read, prices=plan.prices)
            write_table(usage, building / "usage.csv", force=True)
            warn_unmatched(match_trajectories(loaded.scores, usage), answers=False)  # the page says who lacks them
            if plan.given["flags_path"] is not None:
                flags = protocol_flags(read, sites, protocol=plan.protocol, usage=usage)
                write_table(flags, building / "protocol-flags.csv", force=True)
            del read
        write_table(audit(), building / "paper-audit.csv", force=True)
        shown = _subset(loaded.scores, analysis["systems"])
        write_text(format_summary(shown, failure_policy=analysis["failure_policy"]) + "\n", building / "summary.txt",
                   force=True)

        names = [*loaded.scores["system"].astype(str).unique(), *loaded.scores["task_id"].astype(str).unique()]
        long_names = [n for n in names if len(n) > NAME_WIDTH]
        jobs = slowest_first(plan.jobs(building, long_names=long_names), previous_seconds)
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
            "libraries": versions(), "command": command,
            "inputs": inputs,
            "scoring": {"profile": profile, "strict_pairing": strict_pairing, "key": key, "language": language,
                        "tasks_fingerprint": fingerprint,
                        "reused": previous is not None, "seconds": round(scoring_seconds, 3)},
            "analysis": analysis,
            "parameters": {k: v for k, v in plan.given.items()},
            "notebooks": [{"name": r.name, "status": "ok" if r.ok else "failed", "seconds": round(r.seconds, 3),
                           "error": r.error, "kept": r in kept} for r in runs_done],
            "workers": workers, "synthetic": loaded.synthetic,
            "rerun": ("papermill <notebook>.ipynb <copy>.ipynb --cwd <this folder> (paths are relative to it); a re-run "
                      "writes its tables and figures to ../<this folder>-rerun/<notebook>, never into this report, "
                      "unless given -p output_dir ."),
        }
        provenance["files"] = sorted(set(report_files(building)) | {"provenance.json"})
        write_text(json.dumps(provenance, indent=2, default=str) + "\n", building / "provenance.json", force=True)
        install_report(building, out, expected)
        if pool is not None:
            pool.release()
    except BaseException as exc:
        with _shielded():  # a second or third Ctrl-C during the cleanup waits for it to end
            pause("report-cleanup")
            if pool is not None and isinstance(exc, SgrKitError):  # refused inputs: kept kernels stay usable
                pool.refused()
            elif pool is not None:
                pool.stop()
            if not isinstance(exc, ReportFolderChanged):  # else the finished report was kept beside the folder
                remove_folder(building)
            claim.release()
        raise
    finally:
        claim.release()
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
        table = read_csv(folder / "tables" / "main_table.csv", engine="python",
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


@contextlib.contextmanager
def _shielded() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM are ignored (a build cleaning up after an interrupt finishes that)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, signal.SIG_IGN)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)


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
