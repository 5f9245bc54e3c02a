"""Read a scores table written by ``sgr-kit score`` back in, checked.

:func:`read_table` reads any result table (CSV or parquet) and turns every reading problem
into an :class:`~sgr_kit.errors.SgrKitError` naming the file, the line (CSV) and what was
expected: an undecodable file, a quoted field that is never closed, a record with more or
fewer fields than the header, a file that is not parquet. :func:`load_scores` also checks
the values a scores table must have: known statuses and variants, repeats that are integers
>= 0, and metrics that are numbers in [0, 1] (or empty, for answers without metrics).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Mapping

import pandas as pd

from ..errors import MAX_WHOLE, SgrKitError, where
from ..output import plain_frame
from ..schema import LANGUAGES, METRICS, REQUIRED_SCORE_COLUMNS, SCORE_COLUMNS, STATUSES, TEXT_DTYPE, VARIANTS

__all__ = ["by_language", "load_scores", "read_table"]

_SHOWN = 60
#: Count columns of a scores table (whole numbers).
_COUNTS = tuple(c for c, dtype in SCORE_COLUMNS.items() if dtype == "int64" and c != "repeat")


def _record_lines(text: str, path: Path) -> list[int]:
    """The 1-based line where each non-blank CSV record starts (the header first), checking the structure."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    starts: list[int] = []
    width = None
    line = 1
    try:
        for record in reader:
            if record:
                if width is None:
                    width = len(record)
                elif len(record) != width:
                    raise SgrKitError(
                        f"{where(path, line)}: {len(record)} fields; expected {width}, as in the header (line "
                        f"{starts[0]}); a field holding a comma must be quoted"
                    )
                starts.append(line)
            line = reader.line_num + 1
    except csv.Error as exc:
        if "end of data" in str(exc) or "EOF" in str(exc):
            raise SgrKitError(
                f"{where(path, line)}: not valid CSV: a quoted field opened on this line is never closed"
            ) from None
        raise SgrKitError(f"{where(path, reader.line_num)}: not valid CSV ({exc})") from None
    return starts


def read_table(
    path: str | os.PathLike, *, what: str, dtype: Mapping[str, str] | None = None, **csv_options
) -> tuple[pd.DataFrame, list[int] | None]:
    """Read a ``.csv`` or ``.parquet`` result table; problems become errors naming file and line.

    Parameters
    ----------
    path : path
    what : str
        How the file is named in messages (``"scores file"``).
    dtype : mapping, optional
        Column dtypes for CSV files.
    **csv_options
        More options for :func:`pandas.read_csv`.

    A CSV file's text cells come back as they were given to sgr-kit's formula-safe writers
    (:func:`sgr_kit.output.plain_frame`: ``'=x`` is read as ``=x``).

    Returns
    -------
    frame : DataFrame
    lines : list of int or None
        For a CSV file, the line where each row starts (for messages); None for parquet.

    Raises
    ------
    SgrKitError
        When the file is missing, has another suffix, cannot be decoded or parsed.
    """
    p = Path(path)
    if not p.is_file():
        raise SgrKitError(f"{what} {p} does not exist")
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(p)
            names = list(table.column_names)  # damaged bytes can make even the names undecodable
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise SgrKitError(f"{what} {p}: not a readable parquet file ({exc})") from None
        for name, column in zip(names, table.columns):
            try:
                column.validate(full=True)  # e.g. text that is not UTF-8 in a damaged file
            except (pa.ArrowException, ValueError) as exc:
                raise SgrKitError(f"{what} {p}: column {name!r} is damaged ({exc}); expected a file written by "
                                  f"`sgr-kit score`") from None  # fmt: skip
        try:
            return table.to_pandas(), None
        except (pa.ArrowException, ValueError) as exc:
            raise SgrKitError(f"{what} {p}: not a readable parquet file ({exc})") from None
    if suffix != ".csv":
        raise SgrKitError(f"{what} {p}: expected a .csv or .parquet file, got {suffix or 'no suffix'!r}")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        line = p.read_bytes()[: exc.start].count(b"\n") + 1
        raise SgrKitError(f"{where(p, line)}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise SgrKitError(f"{what} {p}: cannot be read ({exc.strerror or exc})") from None
    lines = _record_lines(text, p)
    if not lines:
        raise SgrKitError(f"{what} {p} is empty; expected a header line and rows")
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=dtype, index_col=False, **csv_options)
    except (pd.errors.ParserError, ValueError) as exc:
        raise SgrKitError(f"{what} {p}: not a valid table ({exc})") from None
    return plain_frame(frame), lines[1:]


def _row(lines: list[int] | None, i: int, path: Path) -> str:
    return where(path, lines[i]) if lines is not None and i < len(lines) else f"{path}, row {i + 1}"


def _first_bad(mask: pd.Series) -> int:
    return int(mask.to_numpy().nonzero()[0][0])


def _check_values(frame: pd.DataFrame, path: Path, lines: list[int] | None) -> pd.DataFrame:
    for column in METRICS:
        values = frame[column]
        numbers = pd.to_numeric(values, errors="coerce")
        blank = values.isna() | values.astype("string").str.strip().str.casefold().isin(("", "nan")).fillna(True)
        bad = numbers.isna() & ~blank
        if bad.any():
            i = _first_bad(bad)
            raise SgrKitError(
                f"{_row(lines, i, path)}: column {column!r} holds {str(values.iloc[i])[:_SHOWN]!r}; expected a "
                f"number in [0, 1] (or an empty cell for an answer without metrics); {int(bad.sum())} such row(s)"
            )
        out = (numbers < 0) | (numbers > 1)
        if out.any():
            i = _first_bad(out)
            raise SgrKitError(
                f"{_row(lines, i, path)}: column {column!r} holds {float(numbers.iloc[i])!r}; expected a fraction in [0, 1]"
            )
        frame[column] = numbers.astype("float64")
    for column, allowed in (("status", STATUSES), ("variant", VARIANTS)):
        bad = ~frame[column].isin(allowed)
        if bad.any():
            i = _first_bad(bad)
            raise SgrKitError(
                f"{_row(lines, i, path)}: column {column!r} holds {str(frame[column].iloc[i])[:_SHOWN]!r}; "
                f"expected one of {', '.join(allowed)}"
            )
    repeat = pd.to_numeric(frame["repeat"], errors="coerce")
    bad = repeat.isna() | (repeat < 0) | (repeat > MAX_WHOLE) | (repeat != repeat.round())
    if bad.any():
        i = _first_bad(bad)
        raise SgrKitError(
            f"{_row(lines, i, path)}: column 'repeat' holds {str(frame['repeat'].iloc[i])[:_SHOWN]!r}; "
            f"expected an integer >= 0 (at most {MAX_WHOLE})"
        )
    frame["repeat"] = repeat.astype("int64")
    for column in _COUNTS:  # optional count columns: whole numbers (an empty cell stays missing)
        if column not in frame.columns:
            continue
        values = frame[column].astype("string")
        if values.str.fullmatch("[0-9]{1,9}").fillna(False).all():  # the usual case, quickly: short ASCII digits only
            frame[column] = values.astype("int64")
            continue
        numbers = pd.to_numeric(values, errors="coerce")
        blank = values.isna() | values.astype("string").str.strip().eq("").fillna(True)
        bad = ~blank & (numbers.isna() | (numbers < 0) | (numbers > MAX_WHOLE) | (numbers != numbers.round()))
        if bad.any():
            i = _first_bad(bad)
            raise SgrKitError(
                f"{_row(lines, i, path)}: column {column!r} holds {str(values.iloc[i])[:_SHOWN]!r}; "
                f"expected a whole number from 0 to {MAX_WHOLE} (or an empty cell)"
            )
        frame[column] = numbers.astype("float64" if blank.any() else "int64")
    for column in ("system", "task_id"):
        bad = frame[column].isna() | frame[column].astype("string").str.strip().eq("").fillna(True)
        if bad.any():
            i = _first_bad(bad)
            raise SgrKitError(f"{_row(lines, i, path)}: column {column!r} is empty; expected a name")
    if "synthetic" in frame.columns:
        flags = frame["synthetic"]
        if flags.dtype != bool:
            text = flags.astype("string").str.strip().str.casefold()
            known = {"true": True, "false": False, "1": True, "0": False}
            bad = ~text.isin(list(known)) & flags.notna()
            if bad.any():
                i = _first_bad(bad)
                raise SgrKitError(
                    f"{_row(lines, i, path)}: column 'synthetic' holds {str(flags.iloc[i])[:_SHOWN]!r}; "
                    f"expected True or False"
                )
            frame["synthetic"] = text.map(known).fillna(False).astype(bool)
    return frame


def load_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Read a scores table (``.csv`` or ``.parquet``) written by ``sgr-kit score``.

    Parameters
    ----------
    path : path
        The ``--out`` file of ``sgr-kit score``.

    Returns
    -------
    DataFrame
        As written; ``reason`` stays text, ``synthetic`` boolean, metrics float and
        ``repeat`` integer; ``language`` is ``"en"`` where the file has no such column.

    Raises
    ------
    SgrKitError
        When the file is missing, has another suffix, cannot be read as a table (naming the
        line), lacks a score column, or holds a value a scores table cannot have (naming the
        line or row, the column and what was expected).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.csv"
    >>> _ = path.write_text("system,task_id,variant,repeat,status,item_f1,row_f1,poa\\n"
    ...                     "s,t_001,constraint,0,parsed,0.5,1,n/a\\n")
    >>> load_scores(path)
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: ...scores.csv:2: column 'poa' holds 'n/a'; expected a number in [0, 1] ...
    """
    p = Path(path)
    if not p.is_file():
        raise SgrKitError(f"scores file {p} does not exist; expected the output of `sgr-kit score --out`")
    text_columns = {"reason": "string", "task_id": "string", "base_id": "string", "system": "string",
                    "status": "string", "variant": "string",
                    # whole numbers read as text, checked in _check_values (errors show the text as written)
                    "repeat": "string", **{c: "string" for c in _COUNTS}}  # fmt: skip
    # only an empty cell is a missing value: "NA" stays a system's or a reason's text
    frame, lines = read_table(p, what="scores file", dtype=text_columns, keep_default_na=False, na_values=[""])
    if p.suffix.lower() == ".csv":
        frame["reason"] = frame["reason"].fillna("") if "reason" in frame else ""
    missing = [c for c in REQUIRED_SCORE_COLUMNS if c not in frame.columns]
    if missing:
        raise SgrKitError(
            f"scores file {p}: missing column(s) {', '.join(missing)}; expected a table written by `sgr-kit score`"
        )
    frame = _check_values(frame, p, lines)
    if "language" not in frame.columns:  # written before scores carried a language: the English release
        frame["language"] = LANGUAGES[0]
    else:
        text = frame["language"].astype("string").fillna(LANGUAGES[0]).str.strip().str.lower()
        bad = ~text.isin(LANGUAGES)
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise SgrKitError(
                f"{_row(lines, i, p)}: column 'language' holds {str(frame['language'].iloc[i])[:_SHOWN]!r}; "
                f"expected one of {', '.join(LANGUAGES)}"
            )
        frame["language"] = text.astype(str).astype(TEXT_DTYPE)
    return frame


def by_language(
    scores: pd.DataFrame, cells: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The scores (and cells) with each system labelled by its language when both languages are present.

    With one language (or no ``language`` column) the tables are returned as they are. With
    ``en`` and ``zh``, ``system`` becomes ``"<system> [en]"`` / ``"<system> [zh]"`` in both
    tables (cells without a ``language`` column are English), so that the two languages' answers
    to the same task ids are never averaged, paired or shown together as one system's.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a", "a"], "task_id": ["t1", "t1"], "language": ["en", "zh"]})
    >>> by_language(s)[0]["system"].tolist()
    ['a [en]', 'a [zh]']
    >>> by_language(s.iloc[:1])[0]["system"].tolist()
    ['a']
    """
    if "language" not in scores.columns or scores["language"].nunique() < 2:
        return scores, cells
    scores = scores.assign(system=scores["system"].astype(str) + " [" + scores["language"].astype(str) + "]")
    if cells is not None:
        language = cells["language"].fillna("en") if "language" in cells.columns else "en"
        cells = cells.assign(system=cells["system"].astype(str) + " [" + language.astype(str) + "]")
    return scores, cells
