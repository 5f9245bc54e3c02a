"""The annotation widget from files: what notebook 08's parameters cell names, loaded and opened.

:func:`annotate_files` reads a sample sheet, the scored answers (a scores table with its
cells, or tasks and runs scored here), the trajectories, and opens
:func:`~sgr_kit.annotate.widget.annotate` on them. With no inputs it opens the SYNTHETIC
demo: its tasks and runs, its synthetic trajectories when the package ships them, and an
audit sample drawn here.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from sgr_kit.pipeline import load_inputs
from sgr_kit.resources import demo_dir

from .widget import Annotator, annotate

__all__ = ["annotate_files", "DEMO_TRAJECTORIES"]

#: The demo's synthetic trajectories, inside the packaged demo folder (when shipped).
DEMO_TRAJECTORIES = "trajectories.jsonl"


def annotate_files(
    sheet_path: str | os.PathLike | None = None,
    *,
    annotator: str,
    labels_path: str | os.PathLike,
    scores_path: str | os.PathLike | None = None,
    cells_path: str | os.PathLike | None = None,
    tasks_paths: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
    runs_path: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
    trajectories_path: str | os.PathLike | None = None,
    blind: bool = False,
    seed: int = 0,
    slots: int = 22,
    profile: str = "paper",
) -> Annotator:
    """Load the inputs named by paths and open the annotation widget on them.

    Parameters
    ----------
    sheet_path : path, optional
        The annotation sheet (``sgr-kit sample --out``). None: an audit sample of ``slots``
        task slots drawn here from the scores with ``seed``
        (:func:`sgr_kit.stats.sample.audit_sample`), the same for every system.
    annotator : str
        Your name, written with every label.
    labels_path : path
        Your own label file (CSV); resumed when it exists.
    scores_path, cells_path : path, optional
        A scores table (``sgr-kit score --out``) and its cells (``--cells``).
    tasks_paths, runs_path : path or list of paths, optional
        Task and run files, scored here: then the answers' texts, their parse issues and the
        tasks' conditions are shown. Either these or ``scores_path`` (as
        :func:`sgr_kit.pipeline.load_inputs`).
    trajectories_path : path, optional
        The trajectories (:func:`sgr_kit.trajectories.load_trajectories`: a JSONL file or a
        folder). None: the demo's SYNTHETIC trajectories when the demo is used.
    blind : bool, default False
        Hide system names and scores; shuffle the order from ``seed``.
    seed : int, default 0
        The sample's seed (when drawn here) and the blind shuffle's.
    slots : int, default 22
        Task slots of a sample drawn here (the paper audited 22).
    profile : {"paper", "strict"}, default "paper"

    Returns
    -------
    Annotator

    Raises
    ------
    SgrKitError
        For missing or malformed files (named), or inconsistent inputs.
    """
    from sgr_kit.trajectories import load_trajectories

    demo = scores_path is None and tasks_paths is None and runs_path is None
    inputs = load_inputs(scores=scores_path, cells=cells_path, tasks=tasks_paths, runs=runs_path, profile=profile)
    if sheet_path is not None:
        sheet: Any = sheet_path
    else:
        from sgr_kit.stats.sample import audit_sample

        sheet = audit_sample(inputs.scores, slots=slots, seed=seed)
    if trajectories_path is None and demo:
        shipped = demo_dir() / DEMO_TRAJECTORIES
        trajectories_path = shipped if shipped.is_file() else None
    steps = load_trajectories(trajectories_path) if trajectories_path is not None else None
    return annotate(
        sheet, inputs.scores, inputs.cells, annotator=annotator, labels_path=labels_path, tasks=inputs.tasks,
        runs=inputs.runs, trajectories=steps, blind=blind, seed=seed, synthetic=inputs.synthetic,
        profile=profile,
    )  # fmt: skip
