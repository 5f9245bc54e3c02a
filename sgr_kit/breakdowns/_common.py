"""Checks and small helpers shared by the breakdown modules (not public)."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import SgrKitError
from ..reference import SYSTEMS
from ..schema import ALL_SYSTEMS



def require_columns(table: object, columns: Sequence[str], *, name: str, hint: str = "") -> None:
    """Raise :class:`SgrKitError` unless ``table`` is a DataFrame holding ``columns``."""
    if not isinstance(table, pd.DataFrame):
        raise SgrKitError(f"{name}: expected a pandas DataFrame, found {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise SgrKitError(
            f"{name} lacks column(s) {', '.join(missing)}; expected at least {', '.join(columns)}"
            + (f" ({hint})" if hint else "")
            + f"; found {', '.join(map(str, table.columns)) or 'no columns'}"
        )


def system_order(names: Iterable[str]) -> list[str]:
    """The paper's systems in Table 2's order, then the others as they come, then ``all systems``."""
    seen = list(dict.fromkeys(str(n) for n in names))
    paper = [s for s in SYSTEMS if s in seen]
    others = [s for s in seen if s not in SYSTEMS and s != ALL_SYSTEMS]
    return paper + others + ([ALL_SYSTEMS] if ALL_SYSTEMS in seen else [])


def order_rows(table: pd.DataFrame, orders: dict[str, Sequence[str]]) -> pd.DataFrame:
    """Sort ``table`` stably by the given column orders (values not listed go last, as they come)."""
    if table.empty:
        return table.reset_index(drop=True)
    keys = []
    for column, order in orders.items():
        rank = {v: i for i, v in enumerate(order)}
        keys.append(table[column].map(lambda v, r=rank: r.get(v, len(r))).to_numpy())
    index = np.lexsort(tuple(reversed(keys)))
    return table.iloc[index].reset_index(drop=True)


def scored_tasks(scores: pd.DataFrame) -> pd.DataFrame:
    """Per system and variant group, the number of distinct tasks with a scored answer (any status).

    Columns ``system, variant, n_scored``; ``variant`` is ``constraint``, ``goal`` or ``overall``.
    """
    pairs = scores[["system", "task_id", "variant"]].drop_duplicates(["system", "task_id"])
    per_variant = pairs.groupby(["system", "variant"], sort=False).size().rename("n_scored").reset_index()
    overall = pairs.groupby("system", sort=False).size().rename("n_scored").reset_index().assign(variant="overall")
    return pd.concat([per_variant, overall], ignore_index=True)[["system", "variant", "n_scored"]]
