"""Stand-in for the label store (``store.py``, built on another branch): read and write one annotator's labels.

Replaced by the real store when the branches meet; only the widget uses it.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from sgr_kit.output import atomic_file

LABEL_COLUMNS = ("system", "task_id", "repeat", "annotator", "label", "note", "labelled_at")


def read_labels(path: str | os.PathLike, *, annotator: str) -> pd.DataFrame:
    """The labels ``annotator`` wrote to ``path`` (an empty table when the file does not exist)."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame({c: pd.Series(dtype="int64" if c == "repeat" else object) for c in LABEL_COLUMNS})
    frame = pd.read_csv(path, dtype={"system": str, "task_id": str, "label": str, "note": str, "annotator": str},
                        keep_default_na=False)
    return frame[frame["annotator"] == annotator].reset_index(drop=True)


def write_label(path: str | os.PathLike, *, system: str, task_id: str, repeat: int, annotator: str, label: str,
                note: str = "") -> pd.DataFrame:
    """Add or replace one label and write the whole file atomically; returns the annotator's labels."""
    path = Path(path)
    frame = read_labels(path, annotator=annotator)
    keep = ~((frame["system"] == system) & (frame["task_id"] == task_id) & (frame["repeat"] == int(repeat)))
    row = {"system": system, "task_id": task_id, "repeat": int(repeat), "annotator": annotator, "label": label,
           "note": note, "labelled_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    frame = pd.concat([frame[keep], pd.DataFrame([row])], ignore_index=True)[list(LABEL_COLUMNS)]
    atomic_file(path, lambda tmp: frame.to_csv(tmp, index=False))
    return frame
