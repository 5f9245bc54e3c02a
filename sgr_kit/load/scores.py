"""Read a scores table written by ``sgr-kit score`` back in, checked."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..errors import SgrKitError
from ..schema import REQUIRED_SCORE_COLUMNS

__all__ = ["load_scores"]


def load_scores(path: str | os.PathLike) -> pd.DataFrame:
    """Read a scores table (``.csv`` or ``.parquet``) written by ``sgr-kit score``.

    Parameters
    ----------
    path : path
        The ``--out`` file of ``sgr-kit score``.

    Returns
    -------
    DataFrame
        As written; ``reason`` stays text and ``synthetic`` boolean.

    Raises
    ------
    SgrKitError
        When the file is missing, has another suffix, or lacks a score column.
    """
    p = Path(path)
    if not p.is_file():
        raise SgrKitError(f"scores file {p} does not exist; expected the output of `sgr-kit score --out`")
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        frame = pd.read_parquet(p)
    elif suffix == ".csv":
        frame = pd.read_csv(p, dtype={"reason": "string", "task_id": "string", "base_id": "string",
                                      "system": "string"})
        frame["reason"] = frame["reason"].fillna("") if "reason" in frame else ""
    else:
        raise SgrKitError(f"scores file {p}: expected a .csv or .parquet file, got {suffix or 'no suffix'!r}")
    missing = [c for c in REQUIRED_SCORE_COLUMNS if c not in frame.columns]
    if missing:
        raise SgrKitError(
            f"scores file {p}: missing column(s) {', '.join(missing)}; expected a table written by `sgr-kit score`"
        )
    if "synthetic" in frame.columns:
        frame["synthetic"] = frame["synthetic"].astype(bool)
    return frame
