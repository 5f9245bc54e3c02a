"""The steps table: one row per step of every trajectory (:data:`sgr_kit.schema.STEP_COLUMNS`), built in chunks."""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

from ..schema import STEP_COLUMNS
from .steps import Trajectory

__all__ = ["steps_frame"]

_CHUNK_ROWS = 50_000


def steps_frame(trajectories: Iterable[Trajectory]) -> pd.DataFrame:
    """The steps table (:data:`sgr_kit.schema.STEP_COLUMNS`) of ``trajectories``, built in chunks.

    Examples
    --------
    >>> from sgr_kit.trajectories.steps import Step
    >>> steps_frame([Trajectory("s", "t", 0, (Step("search", query="q"), Step("answer", text="x")))]).shape
    (2, 16)
    """
    chunks: list[pd.DataFrame] = []
    cols: dict[str, list] = {name: [] for name in STEP_COLUMNS}

    def flush() -> None:
        if cols["step"]:
            chunks.append(_frame(cols))
            for values in cols.values():
                values.clear()

    for tr in trajectories:
        for i, s in enumerate(tr.steps):
            cols["system"].append(tr.system)
            cols["task_id"].append(tr.task_id)
            cols["repeat"].append(tr.repeat)
            cols["step"].append(i)
            cols["kind"].append(s.kind)
            cols["tool"].append(s.tool)
            cols["url"].append(s.url)
            cols["host"].append(s.host)
            cols["query"].append(s.query)
            cols["text"].append(s.text)
            cols["t"].append(s.t)
            cols["tokens"].append(s.tokens)
            cols["input_tokens"].append(s.input_tokens)
            cols["cached_input_tokens"].append(s.cached_input_tokens)
            cols["output_tokens"].append(s.output_tokens)
            cols["reasoning_tokens"].append(s.reasoning_tokens)
        if len(cols["step"]) >= _CHUNK_ROWS:
            flush()
    flush()
    if not chunks:
        return _frame(cols)
    return chunks[0] if len(chunks) == 1 else pd.concat(chunks, ignore_index=True)


def _frame(cols: dict[str, list]) -> pd.DataFrame:
    data = {}
    for name, dtype in STEP_COLUMNS.items():
        values = cols[name]
        if dtype == "Int64":
            data[name] = pd.array([pd.NA if v is None else v for v in values], dtype="Int64")
        elif dtype == "float64":
            data[name] = np.asarray(values, dtype="float64")
        else:
            data[name] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(data)
