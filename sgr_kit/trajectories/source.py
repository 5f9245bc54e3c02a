"""Trajectories read once and used for several tables.

A command that needs several tables of the same trajectories (usage, site reach, the tools'
kinds, the protocol flags) reads them once with :func:`read_trajectories` and hands the list
to each function in place of the path: each note about the reading (what a folder was read
as, what was skipped) is then said once, and no file is read twice. :func:`each_trajectory`
is how those functions take either.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ..errors import SgrKitError
from .read import iter_trajectories
from .steps import Trajectory

__all__ = ["read_trajectories", "each_trajectory", "is_read"]


def is_read(source: Any) -> bool:
    """True when ``source`` is trajectories already read: a non-empty list or tuple of :class:`Trajectory`."""
    return isinstance(source, (list, tuple)) and bool(source) and all(isinstance(t, Trajectory) for t in source)


def read_trajectories(source: Any, *, format: str | None = None, tool_kinds: Any = None,
                      notes: Callable[[str], None] | None = None) -> list[Trajectory]:  # fmt: skip
    """Every trajectory of ``source`` in a list (:func:`~sgr_kit.trajectories.iter_trajectories`), read once.

    Parameters
    ----------
    source : path or list of paths
    format, tool_kinds, notes
        As :func:`~sgr_kit.trajectories.iter_trajectories` (``notes``: where each note goes,
        once; by default a :class:`~sgr_kit.trajectories.TrajectoryNote` warning).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trajectories.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_001", "steps": [{"kind": "answer", "text": "a|1"}]}\\n')
    >>> [(tr.system, tr.task_id) for tr in read_trajectories(path)]
    [('s', 't_001')]
    """
    if is_read(source):
        return list(each_trajectory(source, format=format, tool_kinds=tool_kinds))
    return list(iter_trajectories(source, format=format, tool_kinds=tool_kinds, notes=notes))


def each_trajectory(source: Any, *, format: str | None = None, tool_kinds: Any = None,
                    notes: Callable[[str], None] | None = None) -> Iterable[Trajectory]:  # fmt: skip
    """The trajectories of ``source``: a path read as it goes, or a list :func:`read_trajectories` gave, as it is.

    Read trajectories had their format and tool kinds decided when they were read: giving
    ``format`` or ``tool_kinds`` with them is an error (give them to :func:`read_trajectories`).
    """
    if is_read(source):
        if format is not None or tool_kinds is not None:
            raise SgrKitError("tool_kinds and format apply as trajectories are read; these were read already "
                              "(give them to read_trajectories)")  # fmt: skip
        return source
    return iter_trajectories(source, format=format, tool_kinds=tool_kinds, notes=notes)
