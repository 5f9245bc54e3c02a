"""One annotator's label file, written whole and atomically at every label.

:func:`open_labels` (or :class:`LabelStore`) opens the annotator's own file, creating it
(header only) when absent; a file that holds another annotator's labels, or is not a label
file, is refused and never overwritten. :meth:`LabelStore.set` records one label and writes
the whole file at once: a temporary file beside it, flushed and ``fsync``-ed, moved into
place with ``os.replace`` (:func:`sgr_kit.output.atomic_path`), then the folder is synced.
A crash, a restarted kernel or a closed browser tab therefore loses nothing that
:meth:`~LabelStore.set` returned from, and a reader never sees half a file.
:meth:`LabelStore.first_unlabelled` gives where to resume in an annotation sheet.

**Several writers at once.** Every change (:meth:`~LabelStore.set`,
:meth:`~LabelStore.remove`) is a read-modify-write done under an exclusive lock on a file
beside the label file (``.<name>.csv.lock``, a :class:`filelock.FileLock`: ``flock`` on
POSIX, ``LockFileEx`` on Windows): the store reads the file as it is now, changes the one
answer and writes the file back before the next writer may read it. Several processes
(several JupyterLab tabs or kernels of the same annotator) writing one label file at once
therefore keep every label; of two labels of one answer the later wins. The lock is
released when the write is done, also when the process dies (the system releases it); a
writer that cannot have it within :data:`LOCK_TIMEOUT` seconds gets an error naming the
lock file. The lock file itself stays beside the label file (removing it while a writer
holds it would let two writers in); it holds nothing. A writer killed while writing (SIGKILL)
leaves its temporary file (``.<name>.csv.xxxxxxxx.tmp``) beside the label file: temporary files
are made only under the lock, so the next writer, holding the lock, removes them.

**Checked where written.** Given the answers that may be labelled (``answers=``: the
annotation sheet, or the scores table), the store refuses a label of a system, task or
repeat that is not among them, naming which is unknown.

The file format is :data:`sgr_kit.schema.LABEL_COLUMNS` (read back by
:func:`sgr_kit.load.labels.load_labels`); text cells that a spreadsheet would run as a
formula are written with a leading ``'`` (:func:`sgr_kit.output.sheet_cell`) and read back
as they were given.
"""

from __future__ import annotations

import csv
import errno
import io
import os
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pandas as pd

from filelock import FileLock, Timeout

from ..errors import SgrKitError
from ..load.labels import label_code, load_labels, read_label_rows
from ..output import SHEET_LINE_END, atomic_path, leftover_temporaries, sheet_cell
from ..schema import ANNOTATION_LABELS, ERROR_LABELS, LABEL_COLUMNS, TEXT_DTYPE
from .known import Answers, KnownAnswers, known_answers

__all__ = ["LabelStore", "open_labels", "load_labels", "write_label_file", "first_unlabelled", "lock_path",
           "LOCK_TIMEOUT"]

Key = tuple[str, str, int]

#: Seconds a writer waits for another writer of the same label file before giving up.
LOCK_TIMEOUT = 60.0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _check_annotator(annotator: object) -> str:
    name = str(annotator).strip() if annotator is not None else ""
    if not name or "|" in name or name == "all" or "\n" in name:
        raise SgrKitError(
            f"annotator {annotator!r}: expected a non-empty name on one line, without '|' and other than 'all'"
        )
    return name


def _label_text(rows: Iterable[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=SHEET_LINE_END)
    writer.writerow(LABEL_COLUMNS)
    for row in rows:
        writer.writerow([sheet_cell(row[c]) for c in LABEL_COLUMNS])
    return buffer.getvalue()


def write_label_file(rows: Iterable[dict], path: str | os.PathLike) -> Path:
    """Write label rows (dicts with :data:`LABEL_COLUMNS`) to ``path`` whole, atomically and durably.

    The text goes to a temporary file beside ``path``, which is flushed and ``fsync``-ed before
    ``os.replace`` moves it into place; then the folder is ``fsync``-ed (where the system
    allows), so the new file survives a crash of the machine as well as of the kernel.
    Replaces ``path`` unconditionally: callers decide whether they may (the store checks that
    the file is the annotator's own, and holds the file's lock, :func:`lock_path`, while it
    reads and writes). Text cells a spreadsheet would run as a formula get a leading ``'``
    (:func:`sgr_kit.output.sheet_cell`; :func:`load_labels` reads them back as given).
    """
    out = Path(path)
    text = _label_text(rows)
    with atomic_path(out) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    try:
        folder = os.open(out.parent, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows cannot open a folder
        return out
    try:
        os.fsync(folder)
    except OSError:  # pragma: no cover - some file systems refuse fsync on folders
        pass
    finally:
        os.close(folder)
    return out


def lock_path(path: str | os.PathLike) -> Path:
    """The lock file of the label file ``path``: ``.<name>.lock`` beside it.

    Examples
    --------
    >>> lock_path("labels/ann.csv").as_posix()
    'labels/.ann.csv.lock'
    """
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


def _lock_failure(path: Path, exc: OSError) -> str:
    """What stopped the lock of label file ``path`` from being taken, as it is (the lock file there or not)."""
    lock = lock_path(path)
    reason = exc.strerror or str(exc)
    if lock.exists() and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (f"label file {path}: its lock file {lock} exists but cannot be opened for writing ({reason}); "
                f"give yourself write permission on it (or remove it when no one labels into {path.name})")
    if lock.exists():
        return f"label file {path}: cannot take the lock on its lock file {lock} ({reason})"
    return f"label file {path}: cannot create its lock file {lock} in {lock.parent} ({reason})"


def _key(system: object, task_id: object, repeat: object) -> Key:
    try:
        number = int(repeat)
    except (TypeError, ValueError):
        raise SgrKitError(f"repeat {repeat!r}: expected a whole number") from None
    if str(system).strip() == "" or str(task_id).strip() == "":
        raise SgrKitError(f"answer ({system!r}, {task_id!r}, {repeat!r}): expected a system and a task id")
    return (str(system).strip(), str(task_id).strip(), number)


def first_unlabelled(sample: pd.DataFrame | Iterable[tuple], labelled: Iterable[Key]) -> int | None:
    """Position (0-based) in ``sample`` of the first answer not in ``labelled``; None when all are.

    ``sample`` is an annotation sheet (a DataFrame with ``system, task_id, repeat``, e.g.
    :func:`sgr_kit.load.labels.load_sheet`) or a list of ``(system, task_id, repeat)``.

    Examples
    --------
    >>> first_unlabelled([("m", "t1", 0), ("m", "t2", 0)], {("m", "t1", 0)})
    1
    >>> first_unlabelled([("m", "t1", 0)], {("m", "t1", 0)}) is None
    True
    """
    done = set(labelled)
    if isinstance(sample, pd.DataFrame):
        missing = [c for c in ("system", "task_id", "repeat") if c not in sample.columns]
        if missing:
            raise SgrKitError(f"sample: lacks column(s) {', '.join(missing)}; expected system, task_id, repeat")
        items = zip(sample["system"], sample["task_id"], sample["repeat"])
    else:
        items = sample
    for position, item in enumerate(items):
        if _key(*item) not in done:
            return position
    return None


class LabelStore:
    """One annotator's labels, backed by their own label file (see the module docstring).

    Parameters
    ----------
    path : path
        The annotator's label file (``.csv``); created with its header when absent.
    annotator : str
        The annotator's name, written in every row. Not empty, no ``|``, not ``all``.
    clock : callable, optional
        Returns the ``labelled_at`` text (default: UTC now, ISO 8601 to the second).
    answers : DataFrame, path or iterable of (system, task_id, repeat), optional
        The answers that may be labelled: the annotation sheet (a DataFrame or its CSV path)
        or a scores table (:func:`sgr_kit.annotate.known.known_answers`). Given, a label of
        any other answer is refused. Not given, any answer is accepted.

    Raises
    ------
    SgrKitError
        When ``path`` is a folder, is not a label file (its error names file and line), or
        holds labels of another annotator (nothing is written then).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "ann.csv"
    >>> store = LabelStore(path, "ann", clock=lambda: "2026-01-01T00:00:00+00:00")
    >>> store.set("m", "t_001", 0, "scope_drift", note="wrong date filter")
    >>> store.set("m", "t_002", 0, "Correct")
    >>> print(path.read_text(), end="")
    system,task_id,repeat,annotator,label,note,labelled_at
    m,t_001,0,ann,scope_drift,wrong date filter,2026-01-01T00:00:00+00:00
    m,t_002,0,ann,correct,,2026-01-01T00:00:00+00:00
    >>> LabelStore(path, "ann").get("m", "t_001", 0)["label"]
    'scope_drift'
    >>> LabelStore(path, "bob")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: label file .../ann.csv holds labels of 'ann', not of 'bob'; ...
    """

    def __init__(
        self,
        path: str | os.PathLike,
        annotator: str,
        *,
        clock: Callable[[], str] | None = None,
        answers: Answers | None = None,
    ) -> None:
        self.path = Path(path)
        self.annotator = _check_annotator(annotator)
        self._clock = clock or _now
        self._known: KnownAnswers | None = known_answers(answers) if answers is not None else None
        if self.path.is_dir():
            raise SgrKitError(f"label file {self.path} is a folder; expected a .csv file name")
        if self.path.suffix.lower() != ".csv":
            raise SgrKitError(f"label file {self.path}: expected a file name ending in .csv")
        self._rows: dict[Key, dict] = {}
        self._stamp: tuple | None = None
        if self.path.exists():  # a file is replaced whole (os.replace): reading needs no lock (see _read)
            self._read()
        else:
            with self._locked():
                if self.path.exists():  # created by another writer meanwhile
                    self._read()
                else:
                    self._write({})

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the label file's lock (:func:`lock_path`) for one read-modify-write."""
        lock = FileLock(lock_path(self.path), timeout=LOCK_TIMEOUT)
        try:
            lock.acquire()
        except Timeout:
            raise SgrKitError(
                f"label file {self.path}: another writer has held its lock {lock_path(self.path)} for "
                f"{LOCK_TIMEOUT:.0f} s; close the other notebook or tab writing this file, then label again"
            ) from None
        except OSError as exc:
            raise SgrKitError(_lock_failure(self.path, exc)) from None
        try:
            for left in leftover_temporaries(self.path):  # temporary files are made only under this lock, which is
                try:  # ours: whoever made these died while writing (SIGKILL, a crash)
                    left.unlink()
                except OSError:
                    pass
            yield
        finally:
            lock.release()

    def _read(self) -> None:
        # The stamp is taken before the read: a file replaced between the two then differs from the
        # stamp, and the next change reads it again under the lock. (Taken after the read, it would
        # name a version this store never read, and the next change would write back stale rows.)
        stamp = self._stat()
        rows = read_label_rows(self.path)
        others = sorted({r["annotator"] for r in rows} - {self.annotator})
        if others:
            raise SgrKitError(
                f"label file {self.path} holds labels of {', '.join(map(repr, others))}, not of {self.annotator!r}; "
                "each annotator writes their own file (choose another file name)"
            )
        self._rows = {(r["system"], r["task_id"], r["repeat"]): {c: r[c] for c in LABEL_COLUMNS} for r in rows}
        self._stamp = stamp

    def _stat(self) -> tuple | None:
        """What identifies the file's present version: every write replaces it by a new file."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)

    def _reread(self) -> None:
        """The file as it is now (another writer may have changed it); called under the lock.

        Under the lock no one else writes, so a file whose identity (device, inode, size,
        times) is the one this store last read or wrote is that same version: no need to read it.
        """
        stamp = self._stat()
        if stamp is not None and stamp != self._stamp:  # (removed meanwhile: written back with the change)
            self._read()

    def _write(self, rows: dict[Key, dict]) -> None:
        write_label_file(rows.values(), self.path)
        self._rows = rows
        self._stamp = self._stat()

    def set(self, system: str, task_id: str, repeat: int, label: str, note: str = "") -> None:
        """Label one answer (replacing an earlier label of it) and write the whole file at once.

        ``label`` is a code of :data:`ANNOTATION_LABELS` or the paper's name of one; ``note``
        is free text (line breaks become spaces). Under the file's lock the file is read
        again first, so labels another writer added meanwhile are kept.

        Raises
        ------
        SgrKitError
            For an unknown label, or (when the store was given ``answers``) an answer whose
            system, task or repeat is not among them.
        """
        code = label_code(label)
        if code is None:
            raise SgrKitError(f"label {label!r}: expected one of {', '.join(ANNOTATION_LABELS)} "
                              f"(or the paper's names, e.g. {ERROR_LABELS['scope_drift']!r})")
        key = _key(system, task_id, repeat)
        if self._known is not None:
            self._known.check(key)
        row = {"system": key[0], "task_id": key[1], "repeat": key[2], "annotator": self.annotator,
               "label": code, "note": " ".join(str(note or "").split()), "labelled_at": self._clock()}
        with self._locked():
            self._reread()
            rows = dict(self._rows)
            rows[key] = row
            self._write(rows)

    def remove(self, system: str, task_id: str, repeat: int) -> None:
        """Take back the label of one answer (no error when it has none) and write the file."""
        key = _key(system, task_id, repeat)
        with self._locked():
            self._reread()
            if key in self._rows:
                self._write({k: v for k, v in self._rows.items() if k != key})

    def refresh(self) -> None:
        """Read the file again (labels written meanwhile by another tab or process of this annotator)."""
        with self._locked():
            self._reread()

    def get(self, system: str, task_id: str, repeat: int) -> dict | None:
        """The row of one answer (a dict of :data:`LABEL_COLUMNS`), or None when unlabelled."""
        row = self._rows.get(_key(system, task_id, repeat))
        return dict(row) if row is not None else None

    def __contains__(self, item: object) -> bool:
        return isinstance(item, tuple) and len(item) == 3 and _key(*item) in self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"LabelStore({str(self.path)!r}, annotator={self.annotator!r}, {len(self)} labels)"

    def label_notes(self) -> dict[Key, tuple[str, str]]:
        """``{(system, task_id, repeat): (label, note)}`` of every label, as last read or written (no table built)."""
        return {key: (row["label"], row["note"]) for key, row in self._rows.items()}

    @property
    def labels(self) -> pd.DataFrame:
        """The labels as a table of :data:`LABEL_COLUMNS` (``repeat`` int64), in file order."""
        frame = pd.DataFrame(list(self._rows.values()), columns=list(LABEL_COLUMNS))
        for column in LABEL_COLUMNS:
            frame[column] = frame[column].astype("int64" if column == "repeat" else TEXT_DTYPE)
        return frame

    def first_unlabelled(self, sample: pd.DataFrame | Iterable[tuple]) -> int | None:
        """Position (0-based) in ``sample`` of the first answer this annotator has not labelled; None: all done."""
        return first_unlabelled(sample, self._rows.keys())


def open_labels(path: str | os.PathLike, annotator: str) -> LabelStore:
    """Open (or create) ``annotator``'s label file at ``path``: ``LabelStore(path, annotator)``."""
    return LabelStore(path, annotator)
