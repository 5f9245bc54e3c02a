"""The ``sgr-kit`` command line: score, validate, summary, report, demo, audit.

Every user-input problem is reported as ``sgr-kit: error: ...`` on stderr with
exit status 2; the message names the file, line or task and what was expected.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from .errors import SgrKitError

__all__ = ["main", "build_parser"]


def _cmd_score(args: argparse.Namespace) -> int:
    from .output import check_writable, write_table
    from .report import score_sources

    check_writable(args.out, force=args.force)
    if args.cells:
        check_writable(args.cells, force=args.force, what="--cells output")
    result = score_sources(
        args.tasks, args.runs, profile=args.profile, rules=args.rules, pairing=args.pairing,
        strict_pairing=args.strict_pairing, progress=not args.no_progress, with_cells=bool(args.cells),
    )
    scores, cells = result if args.cells else (result, None)
    write_table(scores, args.out, force=args.force)
    if cells is not None:
        write_table(cells, args.cells, force=args.force)
    counts = scores["status"].value_counts().to_dict()
    print(
        f"scored {len(scores)} answers ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}) "
        f"with profile '{args.profile}' -> {args.out}" + (f"; cells -> {args.cells}" if args.cells else "")
    )
    if "synthetic" in scores.columns and scores["synthetic"].any():
        from .summary import SYNTHETIC_NOTE

        print(SYNTHETIC_NOTE)
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from .load import validate

    report = validate(args.tasks, pairing=args.pairing, strict_pairing=args.strict_pairing)
    print(report.text())
    return 0 if report.ok else 1


def _cmd_summary(args: argparse.Namespace) -> int:
    from .load import load_scores
    from .summary import format_summary

    scores = load_scores(args.scores)
    print(format_summary(scores, failure_policy=args.failure_policy, source=str(args.scores)))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import DEFAULT_SEED, write_demo

    seed = DEFAULT_SEED if args.seed is None else args.seed
    paths = write_demo(args.out, seed=seed, force=args.force)
    print(f"wrote {len(paths)} files of the SYNTHETIC demo benchmark (seed {seed}) to {args.out}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import build_report

    paths = build_report(
        args.tasks, args.runs, args.out, profile=args.profile, failure_policy=args.failure_policy,
        rules=args.rules, force=args.force, progress=not args.no_progress,
    )
    print((Path(args.out) / "summary.txt").read_text(encoding="utf-8"))
    print(f"report: {len(paths)} files in {args.out}: " + ", ".join(p.name for p in paths))
    return 0


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
        print(shown[cols].to_string(index=False) if len(shown) else "(no rows)")
    print(f"\n{len(table)} derived numbers checked: {len(table) - len(bad)} consistent, {len(bad)} inconsistent")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``sgr-kit`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="sgr-kit", description="Score and analyse SGR-Bench runs.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("score", help="score runs against tasks; one row per (system, task, repeat)")
    p.add_argument("--tasks", action="append", required=True, metavar="PATH",
                   help="release JSONL, folder, parquet or Hugging Face dataset id (repeatable)")
    p.add_argument("--runs", action="append", required=True, metavar="PATH",
                   help="answers: JSONL/CSV file or <system>/<task_id>.<ext> folder (repeatable)")
    p.add_argument("--out", required=True, metavar="FILE", help="scores table, .csv or .parquet")
    p.add_argument("--cells", metavar="FILE", help="also write every answer's per-cell records (.csv or .parquet)")
    p.add_argument("--profile", choices=("paper", "strict"), default="paper",
                   help="paper (default): reviewer-style canonicalization; strict: the benchmark's own scorer")
    p.add_argument("--rules", metavar="FILE", help="per-task rules (JSON or YAML): aliases, types, tolerance, key")
    p.add_argument("--pairing", metavar="FILE", help="explicit task_id,base_id pairing (CSV or JSON)")
    p.add_argument("--strict-pairing", action="store_true", help="treat every pairing warning as an error")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("validate", help="check task files: pairing, duplicates, references, schemas")
    p.add_argument("--tasks", action="append", required=True, metavar="PATH")
    p.add_argument("--pairing", metavar="FILE")
    p.add_argument("--strict-pairing", action="store_true", help="treat every pairing warning as an error")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("summary", help="per-system means of a scores table, beside the paper's Table 2")
    p.add_argument("scores", metavar="SCORES", help="output of `sgr-kit score` (.csv or .parquet)")
    p.add_argument("--failure-policy", choices=("zero", "exclude"), default="zero",
                   help="how parse failures and missing answers enter means (default: zero)")
    p.set_defaults(func=_cmd_summary)

    p = sub.add_parser("demo", help="write the SYNTHETIC demo benchmark (tasks, answers, audit labels)")
    p.add_argument("--out", default="data/demo", metavar="DIR")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--force", action="store_true", help="overwrite existing files that differ")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("report", help="score once, run the analysis notebooks, write HTML and tables to a folder")
    p.add_argument("--tasks", action="append", required=True, metavar="PATH")
    p.add_argument("--runs", action="append", required=True, metavar="PATH")
    p.add_argument("--out", required=True, metavar="DIR", help="report folder")
    p.add_argument("--profile", choices=("paper", "strict"), default="paper")
    p.add_argument("--failure-policy", choices=("zero", "exclude"), default="zero")
    p.add_argument("--rules", metavar="FILE")
    p.add_argument("--force", action="store_true", help="write into a report folder that is not empty")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_cmd_report)

    p = sub.add_parser("audit", help="recompute every number the paper derives from others")
    p.add_argument("--out", metavar="FILE", help="write the full audit table (.csv or .parquet)")
    p.add_argument("--all", action="store_true", help="print every claim, not only the inconsistent ones")
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=_cmd_audit)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sgr-kit: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``sgr-kit`` console script."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        try:
            return args.func(args)
        except SgrKitError as exc:
            print(f"sgr-kit: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("sgr-kit: interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
