"""The ``sgr-kit`` command line: score, validate, summary, report, demo, audit, sample, agreement.

Every user-input problem is reported as ``sgr-kit: error: ...`` on stderr with
exit status 2; the message names the file, line or task and what was expected.
A closed output pipe (``sgr-kit summary scores.csv | head``) ends the command quietly.
``Ctrl-C`` (SIGINT) and SIGTERM stop the command cleanly: files being written are
temporary files that are removed, earlier outputs stay as they were, and the exit
status is 130 (SIGINT) or 143 (SIGTERM); a second Ctrl-C while a report build cleans up
after the first waits for the cleanup.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings
from pathlib import Path

from . import __version__
from .arguments import whole_number
from .errors import SgrKitError
from .load.release import LANGUAGES
from .schema import FAILURE_POLICIES, PROFILES
from .text import visible

__all__ = ["main", "build_parser", "skip_unused_imports", "SKIPPED_IMPORTS"]


def _scoring_options(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """The options shared by ``score`` and ``report`` (one definition, so the two never drift)."""
    p.add_argument("--tasks", action="extend", nargs="+", required=required, metavar="PATH",
                   help="tasks: release JSONL file, folder, parquet file or Hugging Face dataset id (several paths, "
                        "as from t/*.json, or the option repeated)")
    p.add_argument("--runs", action="append", required=required, metavar="PATH",
                   help="answers: JSONL or CSV file, a <system>/<task_id>.<ext> folder, or trajectories (their final "
                        "answers) (repeatable)")
    p.add_argument("--profile", choices=PROFILES, default=PROFILES[0],
                   help="scoring profile: paper (default, reviewer-style canonicalization) or strict "
                        "(the benchmark's own scorer)")
    p.add_argument("--rules", metavar="FILE", help="per-task rules (JSON or YAML): aliases, types, tolerance, key")
    p.add_argument("--pairing", metavar="FILE", help="explicit task_id,base_id pairing of goal tasks (CSV or JSON)")
    p.add_argument("--strict-pairing", action="store_true", help="treat every pairing warning as an error")
    p.add_argument("--no-progress", action="store_true", help="show no progress bar while scoring")
    p.add_argument("--language", choices=LANGUAGES, default=LANGUAGES[0],
                   help="the language of answers that name none (default en); each answer is scored against the "
                        "tasks of its language (data_en/ or data_zh/ of the task folder or dataset)")


_positive = whole_number(1)
_workers = whole_number(1, " of worker processes")


def _cmd_score(args: argparse.Namespace) -> int:
    from .pipeline import score_files_to
    from .prepare.release import task_fingerprint
    from .schema import SYNTHETIC_NOTE, UNSCORED_STATUSES, is_synthetic
    from .score.parallel import default_workers

    workers = args.workers if args.workers is not None else default_workers()
    task_set, _, scores = score_files_to(
        args.tasks, args.runs, args.out, cells=args.cells, profile=args.profile, rules=args.rules,
        pairing=args.pairing, strict_pairing=args.strict_pairing, workers=workers, force=args.force,
        progress=not args.no_progress, language=args.language,
    )  # fmt: skip
    counts = scores["status"].value_counts().to_dict()
    _print(
        f"scored {len(scores)} answers ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}) "
        f"with profile '{args.profile}' -> {args.out}" + (f"; cells -> {args.cells}" if args.cells else "")
    )
    print(f"task-set fingerprint (SHA-256 of the {len(task_set)} tasks' scored content): {task_fingerprint(task_set)}")
    unscored = sum(counts.get(s, 0) for s in UNSCORED_STATUSES)
    if unscored:
        warnings.warn(
            f"{unscored} answer(s) could not be scored (status {', '.join(UNSCORED_STATUSES)}: a fault of sgr-kit, "
            f"not of the answers; the reason column holds the error); they are left out of every mean",
            UserWarning, stacklevel=1,
        )  # fmt: skip
    if is_synthetic(scores):
        _print(SYNTHETIC_NOTE)
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    ok = True
    runs = None
    if args.tasks:
        from .prepare import validate

        report = validate(args.tasks, pairing=args.pairing, strict_pairing=args.strict_pairing, runs=args.runs,
                          language=args.language)
        _print(report.text(verbose=args.verbose))
        ok, runs = report.ok, report.runs
    elif not args.trajectories:
        raise SgrKitError("validate: give --tasks (task files) or --trajectories (agents' trajectories), or both")
    if args.trajectories:
        from .trajectories.source import read_trajectories
        from .trajectories.usage import check_trajectories

        notes: list[str] = []
        trajectories = read_trajectories(args.trajectories, format=args.trajectory_format, tool_kinds=args.tool_kinds,
                                         notes=notes.append)  # fmt: skip
        _print(check_trajectories(trajectories, notes=notes))
        if args.runs:
            from .prepare.validate import findings_text, trajectory_findings

            if runs is None:  # without task files: the runs read as they are
                from .load.runs import read_runs

                runs, _ = read_runs(args.runs, language=args.language)
            found = trajectory_findings(runs, trajectories)
            _print(findings_text(f"trajectories against the runs ({', '.join(map(str, args.runs))}):", found))
            ok = ok and not any(f.severity == "error" for f in found)
    return 0 if ok else 1


def _cmd_summary(args: argparse.Namespace) -> int:
    from .load import load_scores
    from .report.summary import format_summary

    scores = load_scores(args.scores)
    _print(format_summary(scores, failure_policy=args.failure_policy, source=str(args.scores),
                         ci=args.ci, n_boot=args.n_boot, seed=args.seed))
    return 0


def _cmd_effort(args: argparse.Namespace) -> int:
    from .breakdowns.effort import (answer_effort, cost_axis, effort_means, effort_wide, flag_means, format_effort,
                                    score_cost_frontier)  # fmt: skip
    from .load import load_scores
    from .prepare import load_tasks
    from .trajectories import read_prices, read_tool_kinds, trajectory_usage
    from .trajectories.match import match_trajectories, warn_unmatched
    from .trajectories.protocol import protocol_flags, read_protocol
    from .trajectories.source import read_trajectories

    scores = load_scores(args.scores)
    profile = read_protocol(args.protocol)
    kinds = read_tool_kinds(args.tool_kinds) if args.tool_kinds else None
    if args.prices:
        read_prices(args.prices)  # a bad price file stops here, before the trajectories are read
    tasks = load_tasks(*args.tasks) if args.tasks and profile is not None else None
    trajectories = read_trajectories(args.trajectories, tool_kinds=kinds)  # read once: each note said once
    usage = trajectory_usage(trajectories, prices=args.prices)
    warn_unmatched(match_trajectories(scores, usage))
    answers = answer_effort(scores, usage)
    options = dict(failure_policy=args.failure_policy, n_boot=args.n_boot, seed=args.seed)
    wide = effort_wide(effort_means(answers, **options))
    axis = cost_axis(wide)
    frontier = score_cost_frontier(wide, axis=axis) if axis else None
    by_flag = None
    if profile is not None:
        if tasks is None:
            warnings.warn("the protocol audit ran without --tasks: whether a query holds a line of a task's reference "
                          "answer was not checked (give the task files with --tasks)", UserWarning, stacklevel=1)
        flags = protocol_flags(trajectories, tasks, protocol=profile, usage=usage)
        by_flag = flag_means(scores, answers, flags, **options)
    has = answers["has_trajectory"]
    _print(format_effort(wide, by_flag, frontier=frontier, cost_sources=answers.loc[has, "cost_source"].value_counts()))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import DEFAULT_SEED, write_demo

    seed = DEFAULT_SEED if args.seed is None else args.seed
    paths = write_demo(args.out, seed=seed, force=args.force)
    _print(f"wrote {len(paths)} files of the SYNTHETIC demo benchmark (seed {seed}) to {args.out}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .report.build import NOTEBOOKS, ReportFolderChanged, build_report
    from .report.parameters import parse_parameter

    parameters = {name: parse_parameter(name, value) for name, value in args.parameter or []}
    notebooks = [n.strip() for n in args.notebooks.split(",") if n.strip()] if args.notebooks else list(NOTEBOOKS)
    log = None if args.quiet else (lambda line: _print(line, file=sys.stderr, flush=True))
    if args.quiet:  # no note on how the trajectories were read (the build says each once, through log, otherwise)
        from .trajectories import TrajectoryNote

        warnings.filterwarnings("ignore", category=TrajectoryNote)
    try:
        result = build_report(
            args.tasks, args.runs, args.out, audit_labels=args.audit, label_files=args.labels, profile=args.profile,
            failure_policy=args.failure_policy, rules=args.rules, pairing=args.pairing,
            strict_pairing=args.strict_pairing, notebooks=notebooks, parameters=parameters, workers=args.workers,
            force=args.force, progress=not (args.no_progress or args.quiet), log=log,
            command=" ".join(["sgr-kit", *sys.argv[1:]]), trajectories=args.trajectories, language=args.language,
            prices=args.prices, protocol=args.protocol, tool_kinds=args.tool_kinds,
        )
    except ReportFolderChanged as exc:  # the report was built, and kept beside a folder that changed meanwhile
        _print(f"sgr-kit: error: {exc}", file=sys.stderr)
        return 1
    if not args.quiet:
        _print((result.folder / "summary.txt").read_text(encoding="utf-8"))
    _print(f"report: {len(result.files)} files in {args.out}; open {Path(args.out) / 'index.html'}")
    for run in result.failed:
        _print(f"sgr-kit: error: {run.error}", file=sys.stderr)
    return 0 if result.ok else 1


def _cmd_audit(args: argparse.Namespace) -> int:
    import pandas as pd

    from .reference import audit

    table = audit()
    if args.out:
        from .output import write_table

        write_table(table, args.out, force=args.force)
    bad = table[table["verdict"] != "consistent"]
    with pd.option_context("display.width", 200, "display.max_colwidth", 60, "display.max_rows", 500):
        shown = table if args.all else bad
        cols = ["claim", "location", "published", "recomputed", "difference", "verdict"]
        _print(shown[cols].to_string(index=False) if len(shown) else "(no rows)")
    _print(f"\n{len(table)} derived numbers checked: {len(table) - len(bad)} consistent, {len(bad)} inconsistent")
    return 0


def _cmd_sample(args: argparse.Namespace) -> int:
    from .load import load_scores
    from .output import check_writable, write_sheet
    from .schema import SYNTHETIC_NOTE, is_synthetic
    from .stats.sample import audit_sample, check_balance

    balance = check_balance(args.balance)
    check_writable(args.out, force=args.force, what="annotation sheet", suffixes=(".csv",))
    scores = load_scores(args.scores)
    sheet = audit_sample(scores, slots=args.slots, seed=args.seed, balance=balance, systems=args.system)
    write_sheet(sheet, args.out, force=args.force)
    systems = sheet["system"].nunique()
    how = f", balanced over {' and '.join(balance)}" if balance else ""
    print(f"sampled {args.slots} task slots x {systems} systems = {len(sheet)} answers (seed {args.seed}{how}) "
          f"-> {args.out}")
    if is_synthetic(scores):
        print(SYNTHETIC_NOTE)
    return 0


#: ``agreement --cluster``: what the bootstrap resamples as one unit, and how the output says it.
_CLUSTER = {"task": "task_id", "system": "system", "answer": None}
_RESAMPLED = {"task": "tasks (the answers to one task drawn together)", "system": "systems",
              "answer": "answers (taken as independent)"}


def _cmd_agreement(args: argparse.Namespace) -> int:
    import pandas as pd

    from .annotate import agreement, category_agreement, confusion_matrix, disagreements, load_labels

    if args.out:
        from .output import check_writable

        check_writable(args.out, force=args.force, what="agreement table", suffixes=(".csv", ".parquet"))
    labels = load_labels(args.files)
    if args.sheet or args.scores:
        from .annotate.known import check_labels

        check_labels(labels, args.sheet or args.scores)
    table = agreement(labels, n_boot=args.n_boot, ci=args.ci, seed=args.seed, cluster=_CLUSTER[args.cluster])
    with pd.option_context("display.width", 200, "display.max_colwidth", 80, "display.max_rows", 1000,
                           "display.max_columns", 50):
        print(f"Agreement of {labels['annotator'].nunique()} annotators ({int(round(100 * args.ci))}% bootstrap "
              f"intervals over {_RESAMPLED[args.cluster]}, {args.n_boot} resamples, seed {args.seed}):")
        print(table.round(3).to_string(index=False))
        annotators = sorted(labels["annotator"].unique())
        for i, first in enumerate(annotators):
            for second in annotators[i + 1:]:
                print(f"\nConfusion matrix: {first} (rows) against {second} (columns)")
                print(confusion_matrix(labels, first, second).to_string())
        per = category_agreement(labels)
        order = list(dict.fromkeys(per["label"]))
        per = per.pivot(index="label", columns="annotators", values="value").reindex(order)
        print("\nAgreement per category (share of a category's uses that another annotator matched):")
        print(per.round(3).to_string())
        split = disagreements(labels)
        print(f"\nDisagreements ({split[['system', 'task_id', 'repeat']].drop_duplicates().shape[0]} answers):")
        if split.empty:
            print("(none)")
        else:
            wide = split.pivot(index=["system", "task_id", "repeat"], columns="annotator", values="label")
            print(wide.fillna("-").reset_index().to_string(index=False))
    if args.out:
        from .output import write_sheet

        write_sheet(table, args.out, force=args.force)
    return 0


def _level(value: str) -> float:
    try:
        level = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a level between 0 and 1 (e.g. 0.95); found {value!r}") from None
    if not 0 < level < 1:
        raise argparse.ArgumentTypeError(f"expected a level between 0 and 1 (e.g. 0.95); found {value!r}")
    return level


def _add_audit_commands(sub) -> None:
    """``sample`` and ``agreement``: drawing the audit sample and checking annotators' agreement."""
    p = sub.add_parser("sample", help="draw the audit sample: aligned task slots, every system's answer to each",
                       description="Draw task slots at random (the same tasks for every system, as the paper's "
                                   "audit of 22 slots x 8 agents) and write the annotation sheet: one row per "
                                   "system and slot (system, task_id, repeat, slot, family, variant).")
    p.add_argument("--scores", required=True, metavar="FILE", help="a scores table written by `sgr-kit score`")
    p.add_argument("--slots", type=_positive, default=22, metavar="N", help="task slots to draw (default 22)")
    p.add_argument("--seed", type=int, default=0, help="random seed; the same seed gives the same sheet (default 0)")
    p.add_argument("--balance", metavar="KEYS",
                   help="family, variant or family,variant: allocate slots equally over these strata")
    p.add_argument("--system", action="append", metavar="NAME",
                   help="audit only this system (repeatable; default: every system in the scores)")
    p.add_argument("--out", required=True, metavar="SHEET.csv", help="the annotation sheet to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing sheet")
    p.set_defaults(func=_cmd_sample)

    p = sub.add_parser("agreement", help="agreement between annotators' label files (kappas, alpha, disagreements)",
                       description="Percent agreement and Cohen's kappa per pair, Fleiss' kappa and Krippendorff's "
                                   "alpha (nominal) for all, with bootstrap intervals over tasks; the confusion "
                                   "matrix of each pair, agreement per category and the list of disagreements.")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="label files (system, task_id, repeat, annotator, label, note, labelled_at)")
    p.add_argument("--n-boot", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)")
    p.add_argument("--ci", type=_level, default=0.95, metavar="LEVEL", help="interval level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    p.add_argument("--cluster", choices=list(_CLUSTER), default="task",
                   help="what the bootstrap resamples as one unit: every answer to a task together (default), "
                        "every answer of a system, or each answer on its own")
    known = p.add_mutually_exclusive_group()
    known.add_argument("--sheet", metavar="SHEET.csv",
                       help="the annotation sheet: every label on an answer not in it is an error naming its file "
                            "and line")
    known.add_argument("--scores", metavar="FILE",
                       help="or the scores table: every label on an answer not in it is an error naming its file "
                            "and line")
    p.add_argument("--out", metavar="FILE", help="also write the agreement table (.csv or .parquet)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    p.set_defaults(func=_cmd_agreement)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``sgr-kit`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="sgr-kit", description="Score and analyse SGR-Bench runs.")
    parser.add_argument("--version", action="version", version=f"sgr-kit {__version__}",
                        help="print the version of sgr-kit and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("score", help="score runs against tasks; one row per (system, task, repeat)",
                       description="Score every answer of every system; a task a system did not answer is "
                                   "scored 'missing'.")
    _scoring_options(p)
    p.add_argument("--out", required=True, metavar="FILE", help="the scores table to write, .csv or .parquet")
    p.add_argument("--cells", metavar="FILE",
                   help="also write every answer's per-cell records to this .csv or .parquet file")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="score in N worker processes (default: the machine's cores); the output is the same "
                        "for every N, and small runs are scored in one process")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("validate", help="check task files (and runs files against them) without scoring",
                       description="Report every problem in task files at once, without scoring; with --runs, "
                                   "also every problem of the answers: unknown task ids (with the closest "
                                   "known ids), duplicate answers, empty answers, unreadable lines.")
    p.add_argument("--tasks", action="extend", nargs="+", metavar="PATH",
                   help="release JSONL file, folder, parquet file or Hugging Face dataset id (several paths, as from "
                        "t/*.json, or the option repeated)")
    p.add_argument("--runs", action="append", metavar="PATH",
                   help="answers to check against the tasks (and against --trajectories): JSONL or CSV file, or a "
                        "folder (repeatable)")
    p.add_argument("--trajectories", action="append", metavar="PATH",
                   help="agents' trajectories to read (a JSONL or JSON file of records, or a <system>/<task_id>"
                        "[/<repeat>].<jsonl|json|txt|eval> folder): says what each was read as and lists every tool "
                        "the name rule alone classified; with --runs, also every trajectory that matches no answer "
                        "(an error, with the closest names) and every answer that differs from its trajectory's "
                        "final answer (repeatable)")
    p.add_argument("--tool-kinds", metavar="FILE",
                   help="tool names and their kinds (search, fetch, pdf, tool), CSV tool,kind or YAML; taken before "
                        "the known tools and the name rule")
    p.add_argument("--trajectory-format", metavar="NAME",
                   help="read every trajectory file as this format (e.g. claude-code, openai-chat) instead of "
                        "telling it by its content")
    p.add_argument("--pairing", metavar="FILE", help="explicit task_id,base_id pairing of goal tasks (CSV or JSON)")
    p.add_argument("--strict-pairing", action="store_true", help="treat every pairing warning as an error")
    p.add_argument("--language", choices=LANGUAGES, default=LANGUAGES[0],
                   help="the release's translation to read where a folder holds data_en/ and data_zh/ (default en)")
    p.add_argument("--verbose", action="store_true",
                   help="also show every task's schema (with where its columns, key and separators came from) "
                        "and its prose: conditions, per-column notes, state conditions")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("summary", help="per-system means of a scores table, beside the paper's Table 2",
                       description="Per-system means by variant, beside the paper's Tables 2 and 3.")
    p.add_argument("scores", metavar="SCORES", help="a scores table written by `sgr-kit score` (.csv or .parquet)")
    p.add_argument("--failure-policy", choices=FAILURE_POLICIES, default=FAILURE_POLICIES[0],
                   help="how parse failures and missing answers enter means: zero (default) or exclude")
    p.add_argument("--ci", action="store_true",
                   help="add 95%% bootstrap intervals (resampling base problems) beside the means")
    p.add_argument("--n-boot", type=int, default=10_000, metavar="N",
                   help="bootstrap resamples for --ci (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap for --ci (default 0)")
    p.set_defaults(func=_cmd_summary)

    p = sub.add_parser("effort", help="per-system effort, cost, score-cost frontier and protocol flags",
                       description="Per system: steps, tool calls, tokens, seconds and cost per task with bootstrap "
                                   "intervals, points per dollar, the score-cost frontier, and how many answers "
                                   "break the protocol (budget, stalls, tools, visits of the benchmark itself).")
    p.add_argument("scores", metavar="SCORES", help="a scores table written by `sgr-kit score` (.csv or .parquet)")
    p.add_argument("--trajectories", required=True, metavar="PATH", help="the runs' trajectories (JSONL or folder)")
    p.add_argument("--prices", metavar="FILE", help="a price file (CSV or YAML): system or model, input, "
                   "cached_input, output in USD per million tokens; costs the agents report are kept")
    p.add_argument("--protocol", default="paper", metavar="PROFILE",
                   help="paper (default: the paper's budget, stall limit and tools), none, or a YAML/JSON file")
    p.add_argument("--tool-kinds", metavar="FILE",
                   help="tool names and their kinds (search, fetch, pdf, tool), CSV tool,kind or YAML")
    p.add_argument("--tasks", action="extend", nargs="+", metavar="PATH",
                   help="task files, to find their reference answers' text in queries (several paths, or the option "
                        "repeated)")
    p.add_argument("--failure-policy", choices=FAILURE_POLICIES, default=FAILURE_POLICIES[0],
                   help="how parse failures and missing answers enter means: zero (default) or exclude")
    p.add_argument("--n-boot", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    p.add_argument("--quiet", action="store_true", help="print no notes of how the trajectories were read")
    p.set_defaults(func=_cmd_effort)

    p = sub.add_parser("demo", help="write the SYNTHETIC demo benchmark (tasks, answers, audit labels)",
                       description="Generate the SYNTHETIC, paper-calibrated demo benchmark.")
    p.add_argument("--out", default="data/demo", metavar="DIR", help="folder to write (default data/demo)")
    p.add_argument("--seed", type=int, default=None, help="generator seed (default: the demo's own seed)")
    p.add_argument("--force", action="store_true", help="overwrite existing files that differ")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("report", help="score once, run the analysis notebooks, write an offline report folder",
                       description="Build the report: scores, notebooks run in parallel by papermill, offline HTML "
                                   "pages, figures, tables (CSV and LaTeX) and provenance. Without --tasks and --runs: "
                                   "the SYNTHETIC demo shipped with sgr-kit, with its audit labels.")
    _scoring_options(p, required=False)
    p.add_argument("--audit", metavar="FILE", help="audit labels (CSV: system, task_id, label) for the error profiles")
    p.add_argument("--labels", action="append", metavar="FILE",
                   help="an annotator's label file (repeatable; two or more: the error-profile page shows agreement)")
    p.add_argument("--trajectories", metavar="PATH",
                   help="agents' trajectories (JSONL file or <system>/<task_id>.jsonl folder) for the site-reach and "
                        "effort pages; they also stand in for --runs when it is not given")
    p.add_argument("--prices", metavar="FILE", help="a price file (CSV or YAML) for the effort page's costs where the "
                   "agents report none (default for the demo: its EXAMPLE prices)")
    p.add_argument("--protocol", default="paper", metavar="PROFILE",
                   help="the protocol audit: paper (default), none, or a YAML/JSON profile file")
    p.add_argument("--tool-kinds", metavar="FILE",
                   help="tool names and their kinds (search, fetch, pdf, tool), CSV tool,kind or YAML")
    p.add_argument("--out", default="report", metavar="DIR",
                   help="the report folder to write (default: report); claimed for the whole build (.DIR.lock beside "
                        "it), and never replaced when something else appeared there meanwhile (the new report is then "
                        "kept beside it, exit status 1)")
    p.add_argument("--failure-policy", choices=FAILURE_POLICIES, default=None,
                   help="how parse failures and missing answers enter means, on every page and the index: zero "
                        "(default) or exclude; the same setting as -p failure_policy (give it once)")
    p.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                   help="a notebook parameter, e.g. -p n_boot 2000 or -p systems '[GPT-5.5, Kimi K2.5]' (repeatable; "
                        "only names the notebooks' parameters cells define)")
    p.add_argument("--notebooks", metavar="LIST",
                   help="comma-separated notebooks to run, by name or number (default: all), e.g. 01,03; with "
                        "--force on an existing report, its other pages are kept when built from the same scores "
                        "and parameters")
    p.add_argument("--workers", type=whole_number(1, " of notebooks run at once"), default=None, metavar="N",
                   help="notebooks run at once, each in a kernel of its own (default: the machine's cores)")
    p.add_argument("--quiet", action="store_true",
                   help="print no progress, no summary and no note on how the trajectories were read, only the result "
                        "line (and warnings)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing report in DIR (only an sgr-kit report; never a folder holding an input)")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("audit", help="recompute every number the paper derives from others",
                       description="Check the paper's published numbers against each other.")
    p.add_argument("--out", metavar="FILE", help="write the full audit table (.csv or .parquet)")
    p.add_argument("--all", action="store_true", help="print every claim, not only the inconsistent ones")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    p.set_defaults(func=_cmd_audit)
    _add_audit_commands(sub)
    from .run.cli import add_run_command  # imports no inspect_ai: the command needs it only when it runs

    add_run_command(sub)
    from .run.mcp_server import add_mcp_command  # imports no MCP SDK: the command needs it only when it runs

    add_mcp_command(sub)
    return parser


def _print(*parts: object, file=None, flush: bool = False) -> None:
    """Print for a terminal: names from data (ANSI escapes, direction controls) are shown as markers."""
    print(*(visible(part) for part in parts), file=file, flush=flush)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    _print(f"sgr-kit: warning: {message}", file=sys.stderr)


def _quiet_broken_pipe() -> int:
    # The reader went away (`| head`): point stdout at /dev/null so that the
    # interpreter's final flush does not fail again, and end quietly.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return 0


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that files being written are cleaned up as for Ctrl-C."""


def _terminate(signum, frame) -> None:
    raise _Terminated()


def _interrupt_once(signum, frame) -> None:
    """Ctrl-C during a report build: the first stops it; the ones after it are ignored while it cleans up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


#: An optional import left out of the processes sgr-kit owns (its commands, the test workers, the manual's
#: build; never a user's kernel or session). jsonschema (which nbformat, and so papermill and nbconvert,
#: import) imports ``rfc3987_syntax`` whenever it is installed (through ``jsonschema[format-nongpl]``), and that
#: package compiles some forty grammars as it is imported: about a second of processor time in every report
#: build, for a format ("iri") that no notebook schema uses (python-jsonschema/jsonschema#1428). Without it
#: jsonschema leaves that format unchecked, as it does wherever the package is not installed.
SKIPPED_IMPORTS = ("rfc3987_syntax",)


def skip_unused_imports() -> None:
    """Leave out :data:`SKIPPED_IMPORTS` in this process (called by :func:`main` first).

    Once jsonschema's format checker is imported this does nothing: what it imported stays.
    """
    if "jsonschema._format" in sys.modules:
        return
    for name in SKIPPED_IMPORTS:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]  # None: "import name" raises ImportError


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sgr-kit`` console script."""
    skip_unused_imports()
    args = build_parser().parse_args(argv)
    previous = previous_int = None
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
        if args.func is _cmd_report:
            previous_int = signal.signal(signal.SIGINT, _interrupt_once)
    except ValueError:  # not the main thread (e.g. called from a worker thread): leave the signals alone
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        if getattr(args, "quiet", False):  # --quiet: no notes of how trajectories were read
            from .trajectories.notes import TrajectoryNote

            warnings.simplefilter("ignore", TrajectoryNote)
        try:
            status = args.func(args)
            sys.stdout.flush()
            return status
        except BrokenPipeError:
            return _quiet_broken_pipe()
        except SgrKitError as exc:
            _print(f"sgr-kit: error: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:  # the file system said no where no reader or writer expected it: still a clean error
            where = f"{exc.filename}: " if exc.filename else ""
            _print(f"sgr-kit: error: {where}{exc.strerror or exc}", file=sys.stderr)
            return 2
        except RecursionError:
            _print("sgr-kit: error: an input is nested too deeply to read (more levels than Python's recursion "
                   "limit)", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            _print("sgr-kit: interrupted; unfinished output files were removed", file=sys.stderr)
            return 130
        except _Terminated:
            _print("sgr-kit: terminated; unfinished output files were removed", file=sys.stderr)
            return 143
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
            if previous_int is not None and argv is not None:  # as the program, Ctrl-C stays ignored until it exits
                signal.signal(signal.SIGINT, previous_int)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
