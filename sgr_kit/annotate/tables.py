"""The agreement tables the report's error-profile page shows, from two or more label files."""

from __future__ import annotations

import os
from itertools import combinations
from typing import Iterable

import pandas as pd

from ..errors import SgrKitError
from ..load.labels import load_labels
from ..stats.agreement import agreement, category_agreement, confusion_matrix
from .adjudicate import disagreements

__all__ = ["agreement_tables"]


def agreement_tables(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    n_boot: int = 2000,
    ci: float = 0.95,
    seed: int = 0,
) -> list[tuple[str, str, pd.DataFrame]]:
    """Every agreement table of a set of label files, as ``(name, caption, table)``, in display order.

    ``agreement`` (:func:`sgr_kit.stats.agreement.agreement`), ``category_agreement``,
    ``confusion_1``, ``confusion_2``, ... (one per pair of annotators, rows the first's labels,
    a first column naming them) and ``disagreements``. Names are safe file names (no
    annotator name in them); captions name the annotators.

    Raises
    ------
    SgrKitError
        For fewer than two files or a bad label file (see :func:`~sgr_kit.load.labels.load_labels`).

    Examples
    --------
    >>> from pathlib import Path; import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> for who, label in (("ann", "correct"), ("bob", "scope_drift")):
    ...     _ = (folder / f"{who}.csv").write_text(f"system,task_id,repeat,annotator,label\\nm,t1,0,{who},{label}\\n"
    ...                                          f"m,t2,0,{who},correct\\n")
    >>> [name for name, _, _ in agreement_tables([folder / "ann.csv", folder / "bob.csv"], n_boot=10)]
    ['agreement', 'category_agreement', 'confusion_1', 'disagreements']
    """
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if len(paths) < 2:
        raise SgrKitError(f"label files: agreement needs two or more files, found {len(paths)}")
    labels = load_labels(paths)
    level = f"{round(100 * ci)}%"
    out = [
        ("agreement", f"Agreement between annotators ({level} bootstrap intervals over tasks)",
         agreement(labels, n_boot=n_boot, ci=ci, seed=seed)),
        ("category_agreement", "Agreement per category (share of a category's uses another annotator matched)",
         category_agreement(labels)),
    ]
    annotators = sorted(labels["annotator"].unique())
    for number, (first, second) in enumerate(combinations(annotators, 2), start=1):
        matrix = confusion_matrix(labels, first, second)
        table = matrix.reset_index().rename(columns={first: f"{first} \\ {second}"})
        table.columns.name = None
        out.append((f"confusion_{number}", f"Confusion matrix: {first} (rows) against {second} (columns)", table))
    out.append(("disagreements", "Answers the annotators labelled differently", disagreements(labels)))
    return out
