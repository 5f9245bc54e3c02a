"""Read an audit-label file: one primary label per audited (system, task) trajectory.

An audit file gives one label per trajectory (the paper's Appendix G): one of the six error
types of :data:`sgr_kit.schema.ERROR_TYPES` or ``correct``. It is a CSV file with at least the
columns ``system, task_id, label``; ``base_id``, ``family`` and ``synthetic`` are read when
present (the demo's ``data/demo/audit.csv`` has ``system, task_id, base_id, family, label``).
Labels may also be written as the paper prints them (``Retrieval-Scope Drift``, ``Correct``),
in any case. Rows labelled ``not_analyzable`` (an annotator's label file, see
:mod:`sgr_kit.load.labels`) are left out, with a warning: the error profiles count analyzable
trajectories only. The error profiles built from it are in :mod:`sgr_kit.breakdowns.audit`.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from ..errors import SgrKitError, where
from ..schema import AUDIT_LABELS, AUDIT_TABLE_COLUMNS, ERROR_LABELS, NOT_ANALYZABLE, TEXT_DTYPE
from .labels import _csv_rows, label_code

__all__ = ["AUDIT_REQUIRED", "load_audit"]

#: Columns an audit-label file must have.
AUDIT_REQUIRED = ("system", "task_id", "label")
_TRUE = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
_SPELLINGS = {
    **{code: code for code in AUDIT_LABELS},
    **{label.casefold(): code for code, label in ERROR_LABELS.items()},
    "correct": "correct",
}


def _label(text: str) -> str | None:
    return _SPELLINGS.get(" ".join(text.split()).casefold())


def load_audit(
    path: str | Path,
    *,
    scores: pd.DataFrame | None = None,
    synthetic: bool | None = None,
) -> pd.DataFrame:
    """Read and check an audit-label file.

    Parameters
    ----------
    path : str or Path
        CSV file with at least the columns ``system, task_id, label`` (see the module docstring).
    scores : DataFrame, optional
        The scores table the labels refer to. When given, every (system, task_id)
        must have a scored answer there, and ``base_id`` / ``family`` are taken
        from it where the file has none (and must agree where it has them).
    synthetic : bool, optional
        Whether the labels are simulated; default: the file's ``synthetic`` column,
        else the scored tasks' ``synthetic`` flag, else False.

    Returns
    -------
    DataFrame
        :data:`AUDIT_TABLE_COLUMNS`: ``system, task_id, base_id, family, label``
        (text; ``base_id`` and ``family`` missing when neither the file nor
        ``scores`` gives them), ``line`` (the row's line in the file) and ``synthetic``.
        ``label`` is one of :data:`AUDIT_LABELS`.

    Raises
    ------
    SgrKitError
        For a missing or unreadable file, a missing column, an empty cell, an
        unknown label, a (system, task_id) given twice, or, with ``scores``, a
        system or task id without a scored answer or a family that disagrees;
        the message names the file, line and column.

    References
    ----------
    SGR-Bench paper, Appendix G (the six error types) and Appendix H (the audit).

    Examples
    --------
    >>> from pathlib import Path; import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "audit.csv").write_text("system,task_id,label\\nm,t_001,Criterion Mismatch\\nm,t_002,correct\\n")
    >>> load_audit(folder / "audit.csv")[["system", "task_id", "label", "line"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'system': 'm', 'task_id': 't_001', 'label': 'criterion_mismatch', 'line': 2},
     {'system': 'm', 'task_id': 't_002', 'label': 'correct', 'line': 3}]
    >>> _ = (folder / "bad.csv").write_text("system,task_id,label\\nm,t_001,typo\\n")
    >>> load_audit(folder / "bad.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: .../bad.csv:2, column 'label': unknown label 'typo'; expected one of ...
    """
    path = Path(path)
    if not path.is_file():
        raise SgrKitError(f"audit file {path} not found (expected a CSV file with columns {', '.join(AUDIT_REQUIRED)})")
    header, rows = _csv_rows(path, "audit file")
    missing = [c for c in AUDIT_REQUIRED if c not in header]
    if missing:
        raise SgrKitError(
            f"{where(path, 1)}: audit file lacks column(s) {', '.join(map(repr, missing))}; expected at least "
            f"{', '.join(AUDIT_REQUIRED)}, found {', '.join(map(repr, header)) or 'an empty header'}"
        )
    if not rows:
        raise SgrKitError(f"{path}: expected at least one labelled trajectory, found none")
    position = {name: header.index(name) for name in header}
    records, first, skipped = [], {}, 0
    for line, row in rows:
        here = where(path, line)
        if len(row) != len(header):
            raise SgrKitError(f"{here}: expected {len(header)} fields as in the header, found {len(row)}")
        rec = {name: row[i].strip() for name, i in position.items()}
        for column in AUDIT_REQUIRED:
            if not rec[column]:
                raise SgrKitError(f"{here}, column {column!r}: empty; every row needs a system, a task_id and a label")
        label = _label(rec["label"])
        if label is None and label_code(rec["label"]) == NOT_ANALYZABLE:
            skipped += 1
            continue
        if label is None:
            raise SgrKitError(
                f"{here}, column 'label': unknown label {rec['label']!r}; expected one of "
                f"{', '.join(AUDIT_LABELS)} (or the paper's names, e.g. {ERROR_LABELS['scope_drift']!r})"
            )
        key = (rec["system"], rec["task_id"])
        if key in first:
            raise SgrKitError(
                f"{here}: duplicate (system, task_id) {key!r}; first labelled at line {first[key]} "
                "(one primary label per trajectory)"
            )
        first[key] = line
        flag = None
        if rec.get("synthetic", "") != "":
            flag = _TRUE.get(rec["synthetic"].casefold())
            if flag is None:
                raise SgrKitError(f"{here}, column 'synthetic': expected true or false, found {rec['synthetic']!r}")
        records.append((rec["system"], rec["task_id"], rec.get("base_id") or None, rec.get("family") or None,
                        label, line, flag))  # fmt: skip
    if skipped:
        warnings.warn(f"{path}: {skipped} trajectory(ies) labelled {NOT_ANALYZABLE} left out of the error profiles",
                      UserWarning, stacklevel=2)
        if not records:
            raise SgrKitError(f"{path}: expected at least one analyzable labelled trajectory, found only "
                              f"{NOT_ANALYZABLE} labels")
    audit = pd.DataFrame(records, columns=list(AUDIT_TABLE_COLUMNS))
    if scores is not None:
        audit = _join_scores(audit, scores, path)
    if synthetic is not None:
        audit["synthetic"] = bool(synthetic)
    audit["synthetic"] = audit["synthetic"].fillna(False).astype(bool)
    for column in ("system", "task_id", "base_id", "family", "label"):
        audit[column] = audit[column].astype(TEXT_DTYPE)
    audit["line"] = audit["line"].astype("int64")
    return audit


def _join_scores(audit: pd.DataFrame, scores: pd.DataFrame, path: Path) -> pd.DataFrame:
    missing = [c for c in ("system", "task_id") if c not in scores.columns]
    if missing:
        raise SgrKitError(f"scores: lacks column(s) {', '.join(missing)}; expected a scores table of `sgr-kit score`")
    tasks = scores.drop_duplicates("task_id").set_index("task_id")
    systems = set(scores["system"].astype(str))
    answered = set(zip(scores["system"].astype(str), scores["task_id"].astype(str)))
    problems = []
    for rec in audit.itertuples(index=False):
        here = where(path, rec.line)
        if rec.task_id not in tasks.index:
            problems.append(
                f"{here}, column 'task_id': unknown task id {rec.task_id!r}: the scores table has no such task "
                f"({len(tasks)} tasks, e.g. {', '.join(map(repr, tasks.index[:3]))})"
            )
        elif rec.system not in systems:
            problems.append(
                f"{here}, column 'system': unknown system {rec.system!r}: the scores table has "
                f"{', '.join(map(repr, sorted(systems)))}"
            )
        elif (rec.system, rec.task_id) not in answered:
            problems.append(f"{here}: the scores table has no answer of {rec.system!r} to task {rec.task_id!r}")
        for column in ("base_id", "family"):
            given = getattr(rec, column)
            known = tasks[column].get(rec.task_id) if column in tasks.columns else None
            if given is not None and pd.notna(given) and known is not None and pd.notna(known) and given != known:
                problems.append(
                    f"{here}, column {column!r}: {given!r} disagrees with the scores table, "
                    f"which gives {known!r} for task {rec.task_id!r}"
                )
    if len(problems) == 1:
        raise SgrKitError(problems[0])
    if problems:
        raise SgrKitError(f"audit file {path}: {len(problems)} rows disagree with the scores table:\n  "
                          + "\n  ".join(problems))
    out = audit.copy()
    for column in ("base_id", "family", "synthetic"):
        if column in tasks.columns:
            out[column] = out[column].astype(object).where(out[column].notna(), out["task_id"].map(tasks[column]))
    return out
