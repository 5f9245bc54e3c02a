"""Read annotators' label files and annotation sheets, checked line by line.

A **label file** holds one annotator's labels (written by :mod:`sgr_kit.annotate.store`): a
CSV file with the columns :data:`sgr_kit.schema.LABEL_COLUMNS`,
``system, task_id, repeat, annotator, label, note, labelled_at``. ``label`` is one of
:data:`sgr_kit.schema.ANNOTATION_LABELS` (the six error-type codes, ``correct``,
``not_analyzable``), or the paper's spelling of one (``Retrieval-Scope Drift``,
``Not analyzable``), in any case. ``note`` and ``labelled_at`` may be empty. One annotator
labels an answer (``system, task_id, repeat``) at most once.

An **annotation sheet** (``sgr-kit sample``) lists the answers to label:
``system, task_id, repeat`` and optionally ``slot, family, variant``.

Text cells written with a leading ``'`` so that spreadsheets do not run them as formulas
(:func:`sgr_kit.output.sheet_cell`) are read back as they were given.

The audit file the report reads (``system, task_id, label``) is another format, read by
:func:`sgr_kit.load.load_audit`; a label file with one repeat per (system, task) is also a
valid audit file.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..errors import SgrKitError, where, whole_number
from ..output import sheet_value
from ..schema import ANNOTATION_LABELS, ERROR_LABELS, LABEL_COLUMNS, NOT_ANALYZABLE, TEXT_DTYPE
from .release import read_text

__all__ = ["LABEL_REQUIRED", "SHEET_REQUIRED", "label_code", "load_labels", "load_sheet", "read_label_rows"]

#: Columns a label file must have (``note`` and ``labelled_at`` may be absent).
LABEL_REQUIRED = ("system", "task_id", "repeat", "annotator", "label")
#: Columns an annotation sheet must have.
SHEET_REQUIRED = ("system", "task_id", "repeat")

_SPELLINGS = {
    **{code: code for code in ANNOTATION_LABELS},
    **{label.casefold(): code for code, label in ERROR_LABELS.items()},
    "not analyzable": NOT_ANALYZABLE,
    "not analysable": NOT_ANALYZABLE,
    "not_analysable": NOT_ANALYZABLE,
}


def label_code(text: object) -> str | None:
    """The label code of ``text`` (a code or the paper's name, any case and spacing), or None.

    Examples
    --------
    >>> label_code("Retrieval-Scope Drift"), label_code(" Correct "), label_code("Not analyzable")
    ('scope_drift', 'correct', 'not_analyzable')
    >>> label_code("typo") is None
    True
    """
    return _SPELLINGS.get(" ".join(str(text).split()).casefold())


def _csv_rows(path: Path, what: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if not path.is_file():
        raise SgrKitError(f"{what} {path} not found (expected a CSV file)")
    reader = csv.reader(io.StringIO(read_text(path, what), newline=""))
    try:
        header = [h.strip() for h in next(reader, [])]
        rows, start = [], reader.line_num + 1
        for row in reader:  # each record at the line where it starts (a quoted cell may span lines)
            if any(cell.strip() for cell in row):
                rows.append((start, [sheet_value(cell) for cell in row]))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise SgrKitError(f"{what} {where(path, reader.line_num)}: not a readable CSV file ({exc})") from None
    return header, rows


def _records(path: Path, what: str, required: tuple[str, ...], optional: tuple[str, ...]):
    header, rows = _csv_rows(path, what)
    missing = [c for c in required if c not in header]
    if missing:
        raise SgrKitError(
            f"{where(path, 1)}: {what} lacks column(s) {', '.join(map(repr, missing))}; expected "
            f"{', '.join(required + optional)}, found {', '.join(map(repr, header)) or 'an empty header'}"
        )
    position = {name: header.index(name) for name in (*required, *optional) if name in header}
    for line, row in rows:
        here = where(path, line)
        if len(row) != len(header):
            raise SgrKitError(f"{here}: expected {len(header)} fields as in the header, found {len(row)}")
        rec = {name: row[i].strip() for name, i in position.items()}
        for column in required:
            if not rec[column]:
                raise SgrKitError(f"{here}, column {column!r}: empty; every row needs {', '.join(required)}")
        rec["repeat"] = whole_number(rec["repeat"], here, "column 'repeat'")
        yield here, line, rec


def read_label_rows(path: str | Path) -> list[dict]:
    """The checked rows of one label file as dicts (:data:`LABEL_COLUMNS` and ``line``), in file order.

    Used by :func:`load_labels` and the label store; see :func:`load_labels` for the checks.
    """
    path = Path(path)
    out, first = [], {}
    for here, line, rec in _records(path, "label file", LABEL_REQUIRED, ("note", "labelled_at")):
        code = label_code(rec["label"])
        if code is None:
            raise SgrKitError(
                f"{here}, column 'label': unknown label {rec['label']!r}; expected one of "
                f"{', '.join(ANNOTATION_LABELS)} (or the paper's names, e.g. {ERROR_LABELS['scope_drift']!r})"
            )
        if "|" in rec["annotator"] or rec["annotator"] == "all":
            raise SgrKitError(f"{here}, column 'annotator': {rec['annotator']!r} is reserved; "
                              "expected a name without '|' and other than 'all'")
        key = (rec["annotator"], rec["system"], rec["task_id"], rec["repeat"])
        if key in first:
            raise SgrKitError(
                f"{here}: duplicate item: annotator {key[0]!r} labelled (system {key[1]!r}, task {key[2]!r}, "
                f"repeat {key[3]}) already at line {first[key]}; one label per answer and annotator"
            )
        first[key] = line
        out.append({**rec, "label": code, "note": rec.get("note", ""), "labelled_at": rec.get("labelled_at", ""),
                    "line": line})
    return out


def _frame(records: list[dict], columns: tuple[str, ...]) -> pd.DataFrame:
    frame = pd.DataFrame(records, columns=list(columns))
    for column in columns:
        if column in ("repeat", "line", "slot"):
            frame[column] = frame[column].astype("int64")
        else:
            frame[column] = frame[column].astype(TEXT_DTYPE)
    return frame


def load_labels(paths: str | Path | Iterable[str | Path]) -> pd.DataFrame:
    """Read one or more annotators' label files into one table.

    Parameters
    ----------
    paths : path or list of paths
        Label files (see the module docstring). Each file may hold several annotators;
        an annotator may be spread over files, but labels an answer once.

    Returns
    -------
    DataFrame
        :data:`LABEL_COLUMNS` (text; ``repeat`` int64; ``label`` a code of
        :data:`ANNOTATION_LABELS`; empty ``note`` / ``labelled_at`` as ``""``), then ``file``
        and ``line`` (where each label was read).

    Raises
    ------
    SgrKitError
        For a missing or unreadable file, a missing column, an empty required cell, a
        repeat that is not a whole number from 0 to 2147483647, an unknown label, a reserved annotator name
        (``all`` or one with ``|``), or an answer one annotator labelled twice (in one file
        or two); the message names the file and line.

    Examples
    --------
    >>> from pathlib import Path; import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ann.csv").write_text(
    ...     "system,task_id,repeat,annotator,label,note,labelled_at\\n"
    ...     "m,t_001,0,ann,Criterion Mismatch,wrong field,\\nm,t_002,0,ann,correct,,\\n")
    >>> load_labels(folder / "ann.csv")[["task_id", "annotator", "label", "line"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'task_id': 't_001', 'annotator': 'ann', 'label': 'criterion_mismatch', 'line': 2},
     {'task_id': 't_002', 'annotator': 'ann', 'label': 'correct', 'line': 3}]
    >>> _ = (folder / "bad.csv").write_text("system,task_id,repeat,annotator,label\\nm,t_001,0,ann,typo\\n")
    >>> load_labels(folder / "bad.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: .../bad.csv:2, column 'label': unknown label 'typo'; expected one of ...
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    records, seen = [], {}
    for path in map(Path, paths):
        for rec in read_label_rows(path):
            key = (rec["annotator"], rec["system"], rec["task_id"], rec["repeat"])
            if key in seen:
                raise SgrKitError(
                    f"{where(path, rec['line'])}: duplicate item: annotator {key[0]!r} labelled (system {key[1]!r}, "
                    f"task {key[2]!r}, repeat {key[3]}) already in {seen[key]}; one label per answer and annotator"
                )
            seen[key] = where(path, rec["line"])
            records.append({**rec, "file": str(path)})
    return _frame(records, (*LABEL_COLUMNS, "file", "line"))


def load_sheet(path: str | Path) -> pd.DataFrame:
    """Read an annotation sheet (``sgr-kit sample``): the answers to label, in order.

    Returns
    -------
    DataFrame
        ``system, task_id, repeat`` (then ``slot, family, variant`` when the file has them,
        and ``line``), in file order.

    Raises
    ------
    SgrKitError
        For a missing column, an empty cell, a repeat that is not a whole number or an
        answer listed twice; the message names the file and line.

    Examples
    --------
    >>> from pathlib import Path; import tempfile
    >>> sheet = Path(tempfile.mkdtemp()) / "sheet.csv"
    >>> _ = sheet.write_text("system,task_id,repeat\\nm,t_001,0\\nn,t_001,1\\n")
    >>> load_sheet(sheet)[["system", "repeat", "line"]].to_dict("records")
    [{'system': 'm', 'repeat': 0, 'line': 2}, {'system': 'n', 'repeat': 1, 'line': 3}]
    """
    path = Path(path)
    extra = ("slot", "family", "variant")
    records, first = [], {}
    header_has = set()
    for here, line, rec in _records(path, "annotation sheet", SHEET_REQUIRED, extra):
        key = (rec["system"], rec["task_id"], rec["repeat"])
        if key in first:
            raise SgrKitError(f"{here}: answer (system {key[0]!r}, task {key[1]!r}, repeat {key[2]}) already listed "
                              f"at line {first[key]}")
        first[key] = line
        if "slot" in rec:
            rec["slot"] = whole_number(rec["slot"], here, "column 'slot'")
        header_has |= set(rec)
        records.append({**rec, "line": line})
    columns = (*SHEET_REQUIRED, *[c for c in extra if c in header_has], "line")
    return _frame(records, columns)
