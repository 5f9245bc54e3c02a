"""The one atomic writer: result tables and text files, never over a user's file unasked.

Every output of sgr-kit (scores, cells, summaries, report pages, the demo folder) goes
through :func:`write_table`, :func:`write_text` or :func:`write_bytes`: the content is
written to a temporary file in the target folder and moved into place only when complete,
so a reader never sees half a file and an interrupted run leaves any earlier file intact.
New files get the permissions the user's umask gives an ordinary new file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

import pandas as pd

from .errors import SgrKitError

__all__ = ["TABLE_SUFFIXES", "check_writable", "write_table", "write_text", "write_bytes", "atomic_file"]

TABLE_SUFFIXES = (".csv", ".parquet")


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
    return out


def atomic_file(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp)`` to fill a temporary file beside ``path``, then move it into place."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def write_table(frame: pd.DataFrame, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``frame`` to ``path`` (CSV or parquet by suffix) atomically.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_table(pd.DataFrame({"a": [1]}), folder / "t.csv").read_text()
    'a\\n1\\n'
    """
    out = check_writable(path, force=force, suffixes=TABLE_SUFFIXES)
    if out.suffix.lower() == ".parquet":
        return atomic_file(out, lambda tmp: frame.to_parquet(tmp, index=False))
    return atomic_file(out, lambda tmp: frame.to_csv(tmp, index=False))


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
