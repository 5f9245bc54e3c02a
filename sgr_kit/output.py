"""Writing result tables: by suffix, atomically, never over a user's file unasked."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd

from .errors import SgrKitError

__all__ = ["TABLE_SUFFIXES", "check_writable", "write_table"]

TABLE_SUFFIXES = (".csv", ".parquet")


def check_writable(path: str | os.PathLike, *, force: bool = False, what: str = "output") -> Path:
    """Validate an output path before any work is done.

    Raises :class:`SgrKitError` when the suffix is not ``.csv`` or ``.parquet``,
    or when the file exists and ``force`` is false.
    """
    out = Path(path)
    if out.suffix.lower() not in TABLE_SUFFIXES:
        raise SgrKitError(
            f"{what} {out}: expected a file name ending in {' or '.join(TABLE_SUFFIXES)}, got {out.suffix or 'no suffix'!r}"
        )
    if out.exists() and not force:
        raise SgrKitError(f"{what} {out} already exists; pass --force to overwrite it")
    if out.exists() and out.is_dir():
        raise SgrKitError(f"{what} {out} is a directory; expected a file name")
    return out


def write_table(frame: pd.DataFrame, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``frame`` to ``path`` (CSV or parquet by suffix) atomically.

    The table is written to a temporary file in the same folder and moved into
    place, so a reader never sees half a file and an interrupted run leaves any
    earlier file intact.
    """
    out = check_writable(path, force=force)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        if out.suffix.lower() == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out
