"""Read trajectories from files and folders, one trajectory at a time.

:func:`iter_trajectories` yields them (streamed), :func:`load_trajectories` makes the steps table
of them (:mod:`~sgr_kit.trajectories.table`), :func:`trajectory_answers` gives their final answers
(for :func:`sgr_kit.load.load_runs`). The pieces, each a module:

- where a trajectory sits, and the system, task and repeat its place names
  (:mod:`~sgr_kit.trajectories.layout`): a file by itself, a ``<system>/<task_id>[/<repeat>].<ext>``
  folder, a Harbor job, trial or agent folder;
- one file in any format (:mod:`~sgr_kit.trajectories.files`), the format told by its content
  (:mod:`~sgr_kit.trajectories.formats`: the registry :data:`FORMATS`, :func:`register_format`);
- the documented formats: trajectory records and steps, their lines and JSON
  (:mod:`~sgr_kit.trajectories.records`; a line holds at most :data:`MAX_LINE_BYTES`, only the
  current trajectory is held, never a whole file);
- one module per agent's format: :mod:`~sgr_kit.trajectories.claude`,
  :mod:`~sgr_kit.trajectories.codex`, :mod:`~sgr_kit.trajectories.openai_api`,
  :mod:`~sgr_kit.trajectories.gemini`, :mod:`~sgr_kit.trajectories.harbor`,
  :mod:`~sgr_kit.trajectories.inspect_log`;
- the notes of a read (:mod:`~sgr_kit.trajectories.notes`): what each source was read as, and
  what was corrected or skipped, each kind said once with a count and the first place.

Errors name the file, the line and the step (counted from 0 within the trajectory).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pandas as pd

from ..errors import SgrKitError
from .files import ReadOptions
from .formats import FORMATS, TrajectoryFormat, format_names, register_format
from .layout import TRAJECTORY_SUFFIXES, is_trajectory_source, source_trajectories
from .notes import NoteSink, TrajectoryNote
from .records import MAX_LINE_BYTES, SURROGATE, check_name, check_repeat
from .steps import Trajectory, read_tool_kinds
from .table import steps_frame

__all__ = [
    "iter_trajectories", "load_trajectories", "trajectory_answers", "is_trajectory_source", "steps_frame",
    "FORMATS", "TrajectoryFormat", "register_format", "format_names", "TrajectoryNote", "MAX_LINE_BYTES",
    "TRAJECTORY_SUFFIXES",
]  # fmt: skip


def _sources(source: Any) -> list[Path]:
    if isinstance(source, (str, os.PathLike)):
        return [Path(source)]
    if isinstance(source, Iterable):
        return [Path(s) for s in source]
    raise SgrKitError(f"trajectories: expected a path or a list of paths; found {type(source).__name__}")


def _given(system: Any, task_id: Any, repeat: Any) -> tuple[str | None, str | None, int | None]:
    """``system=``, ``task_id=``, ``repeat=`` checked (None: not given)."""
    return (None if system is None else check_name(system, "system", "trajectories: system="),
            None if task_id is None else check_name(task_id, "task_id", "trajectories: task_id="),
            None if repeat is None else check_repeat(repeat, "trajectories: repeat="))  # fmt: skip


def iter_trajectories(source: Any, *, format: str | None = None, tool_kinds: Any = None,
                      notes: Callable[[str], None] | None = None, system: Any = None, task_id: Any = None,
                      repeat: Any = None) -> Iterator[Trajectory]:  # fmt: skip
    """Yield the trajectories of a file or a folder (or several), one at a time.

    Parameters
    ----------
    source : path or list of paths
        A file (a JSONL or JSON file of trajectory records, or one agent's file in any format of
        :data:`FORMATS`), a ``<system>/<task_id>[/<repeat>].<ext>`` folder, or a Harbor job,
        trial or agent folder (see :mod:`~sgr_kit.trajectories.layout`).
    format : str, optional
        Read every file as this format (a name of :data:`FORMATS`, e.g. ``"claude-code"``)
        instead of telling it by its content.
    tool_kinds : mapping, path or None
        The kind (``search``, ``fetch``, ``pdf``, ``tool``) of tools by name, taken before the
        known tools and the name rule (:func:`~sgr_kit.trajectories.steps.read_tool_kinds`).
    notes : callable, optional
        Called with each note (what a source was read as, what was corrected or skipped, each
        kind once); by default notes are :class:`TrajectoryNote` warnings.
    system, task_id, repeat : optional
        The system, task and repeat of every trajectory read. Without them, a file of records
        and an inspect_ai log name their own, a folder's layout names them, and one agent's
        file given by itself takes the model it names (the main one) as its system and its
        name without suffix as its task (repeat 0).

    Yields
    ------
    Trajectory
        In file order (a folder's systems, tasks and repeats sorted by name).

    Raises
    ------
    SgrKitError
        A missing source, a line that is not JSON, a malformed step (naming file, line and
        step), a duplicate ``(system, task_id, repeat)`` (naming both places), an agent's file
        given by itself that names no model and no ``system=``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trajectories.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_001", "steps": [{"kind": "answer", "text": "a|1"}]}\\n')
    >>> [(tr.system, tr.task_id, tr.repeat, tr.answer) for tr in iter_trajectories(path)]
    [('s', 't_001', 0, 'a|1')]
    """
    sink = NoteSink(notes)
    options = ReadOptions.make(sink, format, read_tool_kinds(tool_kinds) if tool_kinds is not None else None)
    given = _given(system, task_id, repeat)
    seen: dict[tuple[str, str, int], str] = {}
    for path in _sources(source):
        for trajectory in source_trajectories(path, options):
            if any(v is not None for v in given):
                trajectory = replace(trajectory, **{k: v for k, v in zip(("system", "task_id", "repeat"), given)
                                                    if v is not None})  # fmt: skip
            if not trajectory.system:
                raise SgrKitError(f"{trajectory.source}: the file names no model to take as its system; give its "
                                  "system (system=..., or put it in a <system>/ folder)")  # fmt: skip
            key = (trajectory.system, trajectory.task_id, trajectory.repeat)
            if key in seen:
                raise SgrKitError(
                    f"{trajectory.source}: duplicate trajectory for system {key[0]!r}, task {key[1]}, repeat "
                    f"{key[2]} (first at {seen[key]})"
                )
            seen[key] = trajectory.source
            yield _clean(trajectory)
        sink.end_source(path)
    sink.flush()


_TEXT_FIELDS = ("tool", "url", "host", "query", "text")


def _clean(tr: Trajectory) -> Trajectory:
    """``tr`` with lone surrogates (no Unicode character, unwritable to any file) replaced by U+FFFD."""
    bad = [i for i, s in enumerate(tr.steps) if any(SURROGATE.search(getattr(s, f)) for f in _TEXT_FIELDS)]
    if not bad and not SURROGATE.search(tr.system + tr.task_id):
        return tr
    steps = list(tr.steps)
    for i in bad:
        steps[i] = steps[i]._replace(**{f: SURROGATE.sub("\ufffd", getattr(steps[i], f)) for f in _TEXT_FIELDS})
    return Trajectory(SURROGATE.sub("\ufffd", tr.system), SURROGATE.sub("\ufffd", tr.task_id), tr.repeat,
                      tuple(steps), tr.source, tr.format, tr.totals, tr.calls_totals)  # fmt: skip


def load_trajectories(path: Any, *, format: str | None = None, tool_kinds: Any = None, system: Any = None,
                      task_id: Any = None, repeat: Any = None) -> pd.DataFrame:  # fmt: skip
    """Read trajectories into the tidy steps table: one row per step.

    Parameters
    ----------
    path : path or list of paths
        A JSONL file of trajectory records, one agent's file, or a
        ``<system>/<task_id>[/<repeat>].<ext>`` folder of documented steps or of what agents write
        (see :mod:`sgr_kit.trajectories`).
    format : str, optional
        Read every file as this format (a name of :data:`FORMATS`), not by content.
    tool_kinds : mapping, path or None
        Tool names and their kinds, taken first (a CSV or YAML file of ``tool,kind``, or a dict).
    system, task_id, repeat : optional
        The system, task and repeat of every trajectory read; by default a file given by itself
        takes the model it names and its name without suffix (:func:`iter_trajectories`).

    Returns
    -------
    DataFrame
        Columns ``system, task_id, repeat, step, kind, tool, url, host, query, text, t, tokens,
        input_tokens, cached_input_tokens, output_tokens, reasoning_tokens``
        (:data:`sgr_kit.schema.STEP_COLUMNS`): ``step`` counts from 0 within a trajectory;
        ``kind`` is one of ``search, fetch, pdf, tool, message, answer``; ``host`` is the
        normalised host of ``url`` (:func:`~sgr_kit.trajectories.host_of`); absent text is
        ``""``; ``t`` (seconds since the trajectory's start) is NaN and ``tokens`` <NA> when
        unknown. ``input_tokens`` (every prompt token, cached ones included), ``cached_input_tokens``
        (read from a cache), ``output_tokens`` (reasoning included) and ``reasoning_tokens`` are
        those of the model call that made the step, on its first step, <NA> where the agent did
        not report them; ``tokens`` is input plus output (or the total a log wrote). Texts other
        than the answer are excerpts of at most 500 characters.

    Raises
    ------
    SgrKitError
        See :func:`iter_trajectories`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trajectories.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_001", "steps": ['
    ...     '{"kind": "search", "query": "t 001 site", "t": 0.5}, '
    ...     '{"kind": "fetch", "url": "https://www.Example.org/x?a=1", "tokens": 40}, '
    ...     '{"kind": "answer", "text": "a|1"}]}\\n')
    >>> load_trajectories(path)[["step", "kind", "host", "query", "t", "tokens"]]
       step    kind         host       query    t  tokens
    0     0  search               t 001 site  0.5    <NA>
    1     1   fetch  example.org              NaN      40
    2     2  answer                           NaN    <NA>
    """
    return steps_frame(iter_trajectories(path, format=format, tool_kinds=tool_kinds, system=system,
                                         task_id=task_id, repeat=repeat))  # fmt: skip


def trajectory_answers(source: Any) -> Iterator[tuple[str, str, int, str | None, str]]:
    """``(system, task_id, repeat, answer or None, source)`` of every trajectory, streamed (for ``load_runs``)."""
    for tr in iter_trajectories(source):
        yield tr.system, tr.task_id, tr.repeat, tr.answer, tr.source
