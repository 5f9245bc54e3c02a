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
                      notes: Callable[[str], None] | None = None, system: Any = None, task_id: Any = None,
                      repeat: Any = None) -> list[Trajectory]:  # fmt: skip
    """Every trajectory of ``source`` in a list (:func:`~sgr_kit.trajectories.iter_trajectories`), read once.

    Parameters
    ----------
    source : path or list of paths
    format, tool_kinds, notes, system, task_id, repeat
        As :func:`~sgr_kit.trajectories.iter_trajectories` (``notes``: where each note goes,
        once; by default a :class:`~sgr_kit.trajectories.TrajectoryNote` warning; ``system``,
        ``task_id``, ``repeat``: what a single agent file is, where it cannot say).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trajectories.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_001", "steps": [{"kind": "answer", "text": "a|1"}]}\\n')
    >>> [(tr.system, tr.task_id) for tr in read_trajectories(path)]
    [('s', 't_001')]
    """
    if is_read(source):
        return list(each_trajectory(source, format=format, tool_kinds=tool_kinds, system=system, task_id=task_id,
                                    repeat=repeat))  # fmt: skip
    return list(iter_trajectories(source, format=format, tool_kinds=tool_kinds, notes=notes, system=system,
                                  task_id=task_id, repeat=repeat))  # fmt: skip


def each_trajectory(source: Any, *, format: str | None = None, tool_kinds: Any = None,
                    notes: Callable[[str], None] | None = None, system: Any = None, task_id: Any = None,
                    repeat: Any = None) -> Iterable[Trajectory]:  # fmt: skip
    """The trajectories of ``source``: a path read as it goes, or a list :func:`read_trajectories` gave, as it is.

    Read trajectories had their format, tool kinds, system, task and repeat decided when they
    were read: giving any of them with them is an error (give them to :func:`read_trajectories`).
    """
    if is_read(source):
        given = {"format": format, "tool_kinds": tool_kinds, "system": system, "task_id": task_id, "repeat": repeat}
        if any(v is not None for v in given.values()):
            named = ", ".join(k for k, v in given.items() if v is not None)
            raise SgrKitError(f"{named} apply as trajectories are read; these were read already "
                              "(give them to read_trajectories)")  # fmt: skip
        return source
    return iter_trajectories(source, format=format, tool_kinds=tool_kinds, notes=notes, system=system,
                             task_id=task_id, repeat=repeat)  # fmt: skip
