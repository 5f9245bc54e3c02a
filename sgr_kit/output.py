"""The one atomic writer: result tables and text files, never over a user's file unasked.

Every output of sgr-kit (scores, cells, summaries, report pages, the demo folder) goes
through this module: :func:`write_table`, :func:`write_text` or :func:`write_bytes` for a
whole file, :func:`table_stream` for a table written batch by batch (the per-cell records
of a large run). The content is written to a temporary file in the target folder
(:func:`atomic_path`) and moved into place only when complete, so a reader never sees half
a file, and an interrupted run (an exception, ``Ctrl-C``, or ``SIGTERM`` once the command
line turns it into an exception) removes the temporary file and leaves any earlier file
intact. New files get the permissions the user's umask gives an ordinary new file.

Names that come from data (a task id, a system name) never choose where a file goes
unchecked: :func:`child_path` turns such a name into one file name inside a folder.

**Every CSV file sgr-kit writes is formula-safe.** CSV files are opened in spreadsheets,
where a cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return runs as a
formula. :func:`write_table` (scores, the report's tables), :func:`table_stream` and
:func:`write_sheet` (annotation sheets, label files, the agreement table, the final audit
labels) write every such text cell, and column name, prefixed by a single quote ``'`` (the
OWASP CSV-injection guidance, :func:`sheet_frame`), so a spreadsheet shows it as text;
numbers, ``-2.5`` included, stay numbers. :func:`sheet_value` and :func:`plain_frame` undo it
when sgr-kit reads its own files back, so a system named ``=HYPERLINK("http://x","y")`` comes
back as it was given. Sheets' lines end in CRLF (RFC 4180), and so do a table's when a cell
holds a carriage return, so that such a cell is quoted and read back. The rule (:func:`sheet_cell`):
a text whose leading quotes, removed, leave a text starting with one of those characters
that is not a number gets one more ``'`` in front; reading removes one ``'`` from such a
text only. A text that itself starts with ``'`` before a formula character is therefore
written with two quotes and read back with one: the prefix is never ambiguous.
"""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pandas as pd

from .errors import SgrKitError

__all__ = [
    "FORMULA_STARTS", "SHEET_LINE_END", "sheet_cell", "sheet_value", "sheet_frame", "plain_frame", "table_csv", "read_csv", "write_sheet",
    "TABLE_SUFFIXES", "check_writable", "probe_writable", "check_not_input", "atomic_path", "atomic_file",
    "leftover_temporaries", "write_table", "write_text", "write_bytes",
    "TableStream", "table_stream", "child_path",
]  # fmt: skip

TABLE_SUFFIXES = (".csv", ".parquet")
_UNSAFE = re.compile(r"[^\w.-]|^\.+")

#: Line end of sheets meant for people (RFC 4180's CRLF): Python's CSV writer then quotes
#: every cell holding a carriage return, which a lone ``\n`` line end would leave bare.
SHEET_LINE_END = "\r\n"
#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_FIRST = frozenset("'=+-@\t\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _formula_like(text: str) -> bool:
    return text.startswith(FORMULA_STARTS) and _NUMBER.fullmatch(text) is None


def sheet_cell(value: object) -> object:
    """``value`` as a cell of a sheet meant for people: a formula-like text gets a leading ``'``.

    Anything other than a ``str`` is returned as it is (numbers stay numbers).

    Examples
    --------
    >>> print(sheet_cell('=HYPERLINK("http://x","y")'))
    '=HYPERLINK("http://x","y")
    >>> sheet_cell("-2+3+cmd"), sheet_cell("@SUM(1)"), sheet_cell("\\tx")
    ("'-2+3+cmd", "'@SUM(1)", "'\\tx")
    >>> sheet_cell("-2.5"), sheet_cell("+1e3"), sheet_cell("GPT-5.5"), sheet_cell(-2.5)
    ('-2.5', '+1e3', 'GPT-5.5', -2.5)
    >>> sheet_cell("'=1+1"), sheet_cell("'quoted")
    ("''=1+1", "'quoted")
    """
    if isinstance(value, str) and value[:1] in _FIRST and _formula_like(value.lstrip("'")):
        return "'" + value
    return value


def sheet_value(text: str) -> str:
    """The text :func:`sheet_cell` was given, from the cell it wrote (any other text unchanged).

    Examples
    --------
    >>> sheet_value("'=HYPERLINK(1)"), sheet_value("''=1+1"), sheet_value("'quoted"), sheet_value("-2.5")
    ('=HYPERLINK(1)', "'=1+1", "'quoted", '-2.5')
    >>> all(sheet_value(sheet_cell(t)) == t for t in ["=1", "'=1", "''-x", "'", "-", "'-3", "@", "a"])
    True
    """
    if text.startswith("'") and _formula_like(text.lstrip("'")):
        return text[1:]
    return text


def _map_text(series: pd.Series, function: Callable[[str], str], firsts: str) -> pd.Series:
    """``series`` with ``function`` applied to each text cell starting with one of ``firsts`` (others untouched)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = dtype.categories
        if categories.dtype == object or isinstance(categories.dtype, pd.StringDtype):
            renamed = [function(c) if isinstance(c, str) else c for c in categories]
            return series.cat.rename_categories(renamed) if renamed != list(categories) else series
        return series
    if not (dtype == object or isinstance(dtype, pd.StringDtype)):
        return series
    try:
        hit = series.str.slice(0, 1).isin(list(firsts)).fillna(False).astype(bool)
    except AttributeError:  # no text in the column at all
        return series
    if not hit.any():
        return series
    out = series.copy()
    out[hit] = series[hit].map(function)
    return out


def sheet_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :func:`sheet_cell` applied to every text cell and column name (a copy; numbers unchanged).

    Text columns of any kind are covered: ``object``, pandas ``string`` and categorical columns
    (their categories).

    Examples
    --------
    >>> sheet_frame(pd.DataFrame({"=x": ["@SUM(1)", "a"], "n": [-2.5, 1.0]})).to_dict("list")
    {"'=x": ["'@SUM(1)", 'a'], 'n': [-2.5, 1.0]}
    """
    out = frame.copy()
    for i in range(out.shape[1]):
        out.isetitem(i, _map_text(out.iloc[:, i], sheet_cell, "".join(_FIRST)))
    out.columns = [sheet_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def plain_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as :func:`sheet_frame` was given it: :func:`sheet_value` on every text cell and column name.

    What sgr-kit's readers of its own CSV files apply (:func:`sgr_kit.load.scores.read_table`),
    so a system named ``=HYPERLINK(...)`` comes back as it was given.

    Examples
    --------
    >>> frame = pd.DataFrame({"=x": ["@SUM(1)", "'quoted", None], "n": [-2.5, 1.0, 2.0]})
    >>> plain_frame(sheet_frame(frame)).equals(frame)
    True
    """
    out = frame.copy()
    for i in range(out.shape[1]):
        out.isetitem(i, _map_text(out.iloc[:, i], sheet_value, "'"))
    out.columns = [sheet_value(c) if isinstance(c, str) else c for c in out.columns]
    return out


def read_csv(path: str | os.PathLike, **options) -> pd.DataFrame:
    """A CSV file sgr-kit wrote, read by :func:`pandas.read_csv` (``options`` passed on), its text as given.

    :func:`plain_frame` undoes the formula-safe prefix of :func:`write_table`; for a checked read
    with errors naming file and line, see :func:`sgr_kit.load.scores.read_table`.

    Examples
    --------
    >>> import tempfile
    >>> path = write_table(pd.DataFrame({"system": ["=HYPERLINK(1)"], "d": [-2.5]}), Path(tempfile.mkdtemp()) / "t.csv")
    >>> read_csv(path).to_dict("records")
    [{'system': '=HYPERLINK(1)', 'd': -2.5}]
    """
    return plain_frame(pd.read_csv(path, **options))


def table_csv(frame: pd.DataFrame) -> str:
    """``frame`` as the formula-safe CSV text :func:`write_table` writes (no index).

    Examples
    --------
    >>> print(table_csv(pd.DataFrame({"tool": ["@SUM(1+1)*cmd|' /C calc'!A0", "search"], "n": [-2, 3]})), end="")
    tool,n
    '@SUM(1+1)*cmd|' /C calc'!A0,-2
    search,3
    """
    return sheet_frame(frame).to_csv(index=False, lineterminator=SHEET_LINE_END)


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def check_writable(
    path: str | os.PathLike, *, force: bool = False, what: str = "output", suffixes: tuple[str, ...] | None = None
) -> Path:
    """Validate an output path before any work is done.

    Raises :class:`SgrKitError` when the suffix is not one of ``suffixes`` (when given),
    when the path is a folder, when a parent is an existing file, or when the file exists
    and ``force`` is false.
    """
    out = Path(path)
    if suffixes is not None and out.suffix.lower() not in suffixes:
        raise SgrKitError(
            f"{what} {out}: expected a file name ending in {' or '.join(suffixes)}, got {out.suffix or 'no suffix'!r}"
        )
    if out.is_dir():
        raise SgrKitError(f"{what} {out} is a directory; expected a file name")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise SgrKitError(f"{what} {out}: {parent} is an existing file, not a folder")
            break
    if out.exists() and not force:
        raise SgrKitError(f"{what} {out} already exists; pass --force to overwrite it")
    probe_writable(out, what=what)
    return out


def probe_writable(path: str | os.PathLike, *, what: str = "output") -> Path:
    """Check that a file can be created where ``path`` goes, before any long work.

    A temporary file is created (and removed) in the nearest existing folder on the way to
    ``path``, so a read-only file system, a folder without write permission, an immutable
    folder or a path under ``/proc`` is an error naming the path now, not after scoring.

    Raises
    ------
    SgrKitError
        Naming ``path`` and the system's reason.
    """
    out = Path(path)
    folder = out.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=".sgr-kit-probe-", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise SgrKitError(f"{what} {out}: cannot write in {folder} ({exc.strerror or exc})") from None
    return out


def check_not_input(path: str | os.PathLike, inputs, *, what: str = "output") -> Path:
    """Refuse an output that is one of the inputs (a file or a folder), with or without ``--force``.

    Examples
    --------
    >>> import tempfile
    >>> runs = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = runs.write_text("system,task_id,answer")
    >>> check_not_input(runs, [runs], what="--out")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: --out ... is the input ...runs.csv; an output never replaces an input, even with --force
    """
    out = Path(os.path.realpath(path))
    for source in inputs or ():
        if source is None or not Path(source).exists():
            continue
        real = Path(os.path.realpath(source))
        if real == out or out in real.parents:
            raise SgrKitError(f"{what} {path} {'is' if real == out else 'contains'} the input {source}; "
                              f"an output never replaces an input, even with --force")
    return Path(path)


#: The random part of a temporary file name (``tempfile.mkstemp``: eight of these characters).
_TEMPORARY = re.compile(r"[a-z0-9_]{8}\.tmp")


def leftover_temporaries(path: str | os.PathLike) -> list[Path]:
    """Temporary files beside ``path`` named as :func:`atomic_path` names them (``.NAME.xxxxxxxx.tmp``).

    What a write of ``path`` killed outright (SIGKILL, a crash of the machine) leaves behind:
    sgr-kit removes them where it can prove their writer is gone (the label store, under the
    label file's lock), and :func:`atomic_path` lists them otherwise.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / ".scores.csv.a1b2c3d4.tmp").write_text("half a table")
    >>> _ = (folder / ".scores.csv.notes.txt").write_text("mine")
    >>> [p.name for p in leftover_temporaries(folder / "scores.csv")]
    ['.scores.csv.a1b2c3d4.tmp']
    """
    out = Path(path)
    prefix = f".{out.name}."
    try:
        names = os.listdir(out.parent)
    except OSError:
        return []
    return sorted(out.parent / n for n in names
                  if n.startswith(prefix) and _TEMPORARY.fullmatch(n[len(prefix):])
                  and os.path.isfile(out.parent / n) and not os.path.islink(out.parent / n))  # fmt: skip


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary file name beside ``path``; move the file into place when the block completes.

    When the block raises (any exception, ``KeyboardInterrupt`` and ``SystemExit``
    included) the temporary file is removed and ``path`` is left as it was.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "a.txt") as tmp:
    ...     _ = Path(tmp).write_text("done")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('done', ['a.txt'])
    """
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise SgrKitError(f"output {out}: a parent folder is an existing file") from None
    except OSError as exc:
        raise SgrKitError(f"output {out}: cannot create its folder ({exc.strerror or exc})") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
        os.close(fd)
    except OSError as exc:
        raise SgrKitError(f"output {out}: cannot write in {out.parent} ({exc.strerror or exc})") from None
    left = [p for p in leftover_temporaries(out) if p.name != Path(tmp).name]
    if left:  # another writer's, or a killed one's: which, sgr-kit cannot tell here; say so once per write
        import shlex
        import warnings

        warnings.warn(f"{out}: {len(left)} temporary file(s) beside it left by a write that was interrupted, or "
                      f"still being written by another process; once no other sgr-kit writes {out.name}, remove "
                      f"them: rm -- {' '.join(shlex.quote(str(p)) for p in left[:5])}"
                      f"{' ...' if len(left) > 5 else ''}", UserWarning, stacklevel=3)  # fmt: skip
    try:
        try:
            yield tmp
        except OSError as exc:
            if exc.filename not in (None, tmp, str(out)):
                raise  # an input that could not be read: the reader names it
            raise SgrKitError(f"output {out}: writing failed ({exc.strerror or exc})") from None
        try:
            os.chmod(tmp, _umask_mode())
            os.replace(tmp, out)
        except OSError as exc:
            raise SgrKitError(f"output {out}: cannot move the finished file into place ({exc.strerror or exc})") from None
    finally:
        if os.path.exists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass


def atomic_file(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp)`` to fill a temporary file beside ``path``, then move it into place."""
    with atomic_path(path) as tmp:
        write(tmp)
    return Path(path)


def write_table(frame: pd.DataFrame, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``frame`` to ``path`` (CSV or parquet by suffix) atomically.

    A CSV file is formula-safe, as every CSV sgr-kit writes: a text cell (or column name) that a
    spreadsheet would run as a formula gets a leading ``'`` (:func:`sheet_frame`; numbers stay
    numbers), which sgr-kit's readers remove (:func:`plain_frame`). A text holding a carriage
    return is quoted (the file's lines then end in CRLF).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_table(pd.DataFrame({"a": [1]}), folder / "t.csv").read_text()
    'a\\n1\\n'
    >>> print(write_table(pd.DataFrame({"system": ["=1+1"], "d": [-2.5]}), folder / "u.csv").read_text(), end="")
    system,d
    '=1+1,-2.5
    """
    out = check_writable(path, force=force, suffixes=TABLE_SUFFIXES)
    if out.suffix.lower() == ".parquet":
        return atomic_file(out, lambda tmp: frame.to_parquet(tmp, index=False))
    return atomic_file(out, lambda tmp: sheet_frame(frame).to_csv(tmp, index=False,
                                                                  lineterminator=SHEET_LINE_END))  # = table_csv


def write_sheet(frame: pd.DataFrame, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write a table meant to be opened in a spreadsheet (CSV or parquet by suffix), atomically.

    As :func:`write_table`, with every text cell of a CSV file that a spreadsheet would run as
    a formula prefixed by ``'`` (:func:`sheet_cell`); sgr-kit's readers of these files undo it
    (:func:`sheet_value`). Parquet files hold the values as they are (no spreadsheet runs them).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> print(write_sheet(pd.DataFrame({"system": ["=1+1", "-x"], "d": [-2.5, 1]}), folder / "t.csv").read_text(), end="")
    system,d
    '=1+1,-2.5
    '-x,1.0
    """
    out = check_writable(path, force=force, suffixes=TABLE_SUFFIXES)
    if out.suffix.lower() == ".parquet":
        return atomic_file(out, lambda tmp: frame.to_parquet(tmp, index=False))
    return atomic_file(out, lambda tmp: sheet_frame(frame).to_csv(tmp, index=False, lineterminator=SHEET_LINE_END))


def write_text(text: str, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; an existing file only with ``force``."""
    out = check_writable(path, force=force)

    def fill(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)

    return atomic_file(out, fill)


def write_bytes(data: bytes, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically; an existing file only with ``force``."""
    out = check_writable(path, force=force)
    return atomic_file(out, lambda tmp: Path(tmp).write_bytes(data))


class TableStream:
    """A table being written batch by batch (see :func:`table_stream`).

    Parquet files get row groups of ``row_group_rows`` rows whatever the batches' sizes, so
    the same rows in the same order always give the same file; CSV files get one header and
    the rows as :meth:`pandas.DataFrame.to_csv` writes them, formula-safe (:func:`sheet_frame`),
    lines ending in CRLF.

    Attributes
    ----------
    rows : int
        Rows written so far.
    """

    def __init__(self, tmp: str, *, schema, parquet: bool, row_group_rows: int) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._pa = pa
        self._schema = schema
        self._row_group_rows = row_group_rows
        self._pending: list = []
        self._pending_rows = 0
        self.rows = 0
        if parquet:
            self._writer = pq.ParquetWriter(tmp, schema)
            self._csv = None
        else:
            self._writer = None
            self._csv = open(tmp, "w", encoding="utf-8", newline="")

    def write(self, batch) -> None:
        """Append a :class:`pyarrow.RecordBatch` (or Table) with the stream's schema."""
        if batch is None or batch.num_rows == 0:
            return
        if not batch.schema.equals(self._schema, check_metadata=False):
            raise SgrKitError(f"table stream: a batch has schema {batch.schema}; expected {self._schema}")
        self.rows += batch.num_rows
        if self._csv is not None:
            table = batch if isinstance(batch, self._pa.Table) else self._pa.Table.from_batches([batch])
            sheet_frame(table.to_pandas()).to_csv(self._csv, index=False, header=self.rows == batch.num_rows,
                                                  lineterminator=SHEET_LINE_END)
            return
        self._pending += batch.to_batches() if isinstance(batch, self._pa.Table) else [batch]
        self._pending_rows += batch.num_rows
        if self._pending_rows >= self._row_group_rows:
            self._flush(final=False)

    def _flush(self, *, final: bool) -> None:
        if not self._pending:
            return
        pa = self._pa
        table = pa.Table.from_batches(self._pending, schema=self._schema)
        size = self._row_group_rows
        full = table.num_rows if final else table.num_rows - table.num_rows % size
        if full:
            self._writer.write_table(table.slice(0, full), row_group_size=size)
        rest = table.slice(full)
        self._pending = rest.to_batches() if rest.num_rows else []
        self._pending_rows = rest.num_rows

    def close(self, *, complete: bool) -> None:
        """Finish the file (``complete``) or just release it (on failure)."""
        if self._csv is not None:
            if complete and self.rows == 0:
                empty = self._pa.Table.from_batches([], schema=self._schema).to_pandas()
                sheet_frame(empty).to_csv(self._csv, index=False, lineterminator=SHEET_LINE_END)
            self._csv.close()
            return
        if complete:
            self._flush(final=True)
            if self.rows == 0:
                self._writer.write_table(self._pa.Table.from_batches([], schema=self._schema))
        self._writer.close()


@contextmanager
def table_stream(
    path: str | os.PathLike, *, schema, force: bool = False, row_group_rows: int = 262_144
) -> Iterator[TableStream]:
    """Write a table batch by batch, atomically: ``with table_stream(path, schema=...) as out: out.write(batch)``.

    The suffix chooses the format (``.parquet`` through :class:`pyarrow.parquet.ParquetWriter`,
    ``.csv``); memory holds at most one row group, not the whole table. An existing file is
    replaced only with ``force``, and only when the block completes.

    Parameters
    ----------
    path : path
    schema : pyarrow.Schema
        Every batch's schema (its pandas metadata decides the dtypes a reader gets back).
    force : bool, default False
    row_group_rows : int, default 262144
        Rows per parquet row group.

    Examples
    --------
    >>> import tempfile, pyarrow as pa
    >>> path = Path(tempfile.mkdtemp()) / "t.parquet"
    >>> schema = pa.schema([("a", pa.int64())])
    >>> with table_stream(path, schema=schema, row_group_rows=2) as out:
    ...     for start in (0, 3):
    ...         out.write(pa.record_batch([pa.array(range(start, start + 3))], schema=schema))
    >>> pd.read_parquet(path)["a"].tolist()
    [0, 1, 2, 3, 4, 5]
    """
    out = check_writable(path, force=force, suffixes=TABLE_SUFFIXES)
    with atomic_path(out) as tmp:
        stream = TableStream(tmp, schema=schema, parquet=out.suffix.lower() == ".parquet",
                             row_group_rows=row_group_rows)  # fmt: skip
        try:
            yield stream
        except BaseException:
            stream.close(complete=False)
            raise
        stream.close(complete=True)


def child_path(folder: str | os.PathLike, name: str, *, suffix: str = "") -> Path:
    """A file inside ``folder`` named after ``name`` (a task id, a system name), never outside it.

    Every character other than letters, digits, ``_``, ``.`` and ``-`` becomes ``_``, and
    leading dots are replaced, so ``/``, ``..`` and absolute paths cannot leave the folder.

    Examples
    --------
    >>> child_path("out", "../../etc/passwd", suffix=".md").as_posix()
    'out/__.._etc_passwd.md'
    >>> child_path("out", "/tmp/x").as_posix(), child_path("out", "arxiv_001-g").as_posix()
    ('out/_tmp_x', 'out/arxiv_001-g')
    """
    safe = _UNSAFE.sub("_", str(name)) or "_"
    base = Path(folder)
    out = base / f"{safe}{suffix}"
    if out.parent != base:  # pragma: no cover - the substitution leaves no separator
        raise SgrKitError(f"name {name!r} would leave the folder {base}")
    return out
