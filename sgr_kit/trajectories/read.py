"""Read trajectories from files and folders, one line at a time.

Sources (:func:`iter_trajectories`, :func:`load_trajectories`):

- a **JSONL file** of records, one per line: ``{"system", "task_id", "repeat" (optional, default
  0), "steps": [step, ...], "answer" (optional)}`` in the documented step format
  (:mod:`~sgr_kit.trajectories.steps`), or with ``"messages": [...]`` (OpenAI-style chat
  messages) instead of ``steps``. A record's ``answer``, when given, is its final answer (added
  as a last ``answer`` step when the steps hold none);
- a **folder** ``<system>/<task_id>.jsonl`` or ``<system>/<task_id>/<repeat>.jsonl``: each file one
  trajectory, whose first line says what it is: a step of the documented format (a ``kind``:
  one step per line), a Claude Code ``stream-json`` line (a ``type``), a chat message (a
  ``role``: one message per line), or one record as above (``steps`` or ``messages``; its
  system, task and repeat, when written, must agree with the file's place). JSONL files
  directly in the folder are record files. Hidden files are ignored.

Every file is read line by line: only the current trajectory is held, never a whole file.
Errors name the file, the line and the step (counted from 0 within the trajectory).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import pandas as pd

from ..errors import SgrKitError, where
from ..schema import STEP_COLUMNS
from .agents import ChatReader, ClaudeCodeReader
from .steps import Step, Trajectory, native_step

__all__ = ["iter_trajectories", "load_trajectories", "trajectory_answers", "is_trajectory_source", "steps_frame"]

_CLAUDE_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event"})
_CHUNK_ROWS = 50_000


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their 1-based numbers, read one at a time.

    Lines end at ``\\n`` only (a ``\\r`` before it is dropped), as in every JSONL reader of sgr-kit.
    """
    try:
        with open(path, "rb") as handle:
            for n, raw in enumerate(handle, start=1):
                try:
                    line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise SgrKitError(f"{where(path, n)}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
                line = line.rstrip("\r\n")
                if line.strip():
                    yield n, line
    except OSError as exc:
        raise SgrKitError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _object(line: str, loc: str) -> dict:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SgrKitError(f"{loc}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise SgrKitError(f"{loc}: expected a JSON object; found {type(value).__name__}")
    return value


def _repeat(value: Any, loc: str) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    raise SgrKitError(f"{loc}: repeat should be an integer >= 0; found {value!r}")


def _name(value: Any, what: str, loc: str) -> str:
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
    if not text:
        raise SgrKitError(f"{loc}: {what} is missing or empty; every trajectory needs its {what}")
    return text


def _record_steps(record: dict, loc: str) -> list[Step]:
    """The steps of one record (documented steps or chat messages), with its answer."""
    if "steps" in record:
        raw = record["steps"]
        if not isinstance(raw, list):
            raise SgrKitError(f"{loc}: steps must be a list of step objects; found {type(raw).__name__}")
        steps = [native_step(s, loc=f"{loc}: step {i}") for i, s in enumerate(raw)]
    elif "messages" in record:
        raw = record["messages"]
        if not isinstance(raw, list):
            raise SgrKitError(f"{loc}: messages must be a list of chat messages; found {type(raw).__name__}")
        reader = ChatReader()
        for i, message in enumerate(raw):
            if not isinstance(message, dict):
                raise SgrKitError(f"{loc}: message {i}: expected a chat message object; found {type(message).__name__}")
            reader.line(message, loc=f"{loc}: message {i}")
        steps = reader.finish()
    else:
        raise SgrKitError(f"{loc}: expected a trajectory record with steps (or messages); found keys "
                          f"{', '.join(map(str, record)) or 'none'}")  # fmt: skip
    answer = record.get("answer")
    if answer is not None:
        if not isinstance(answer, str):
            raise SgrKitError(f"{loc}: answer must be text or null; found {type(answer).__name__}")
        if not any(s.kind == "answer" for s in steps):
            steps.append(Step(kind="answer", text=answer))
    return steps


def _records(path: Path, *, default: tuple[str, str, int] | None = None) -> Iterator[Trajectory]:
    for n, line in _lines(path):
        loc = where(path, n)
        record = _object(line, loc)
        if default is None:
            system = _name(record.get("system"), "system", loc)
            task_id = _name(record.get("task_id"), "task_id", loc)
            repeat = _repeat(record.get("repeat"), loc)
        else:
            system, task_id, repeat = default
            for key, value in zip(("system", "task_id", "repeat"), default):
                given = record.get(key)
                if given is not None and str(given).strip() != str(value):
                    raise SgrKitError(f"{loc}: {key} is {given!r} but the file's place in the folder says {value!r}")
        yield Trajectory(system, task_id, repeat, tuple(_record_steps(record, loc)), loc)


def _one_file(path: Path, system: str, task_id: str, repeat: int) -> Iterator[Trajectory]:
    """The trajectory of one file of a folder (its format told by its first line)."""
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise SgrKitError(f"{path}: empty; expected a trajectory (one step, message or stream-json line per line)")
    n, line = first
    obj = _object(line, where(path, n))
    if "steps" in obj or "messages" in obj:
        lines.close()
        yield from _records(path, default=(system, task_id, repeat))
        return
    if "kind" in obj:
        steps = [native_step(obj, loc=f"{where(path, n)}: step 0")]
        for n, line in lines:
            loc = f"{where(path, n)}: step {len(steps)}"
            steps.append(native_step(_object(line, where(path, n)), loc=loc))
        yield Trajectory(system, task_id, repeat, tuple(steps), str(path))
        return
    if isinstance(obj.get("type"), str) and obj["type"] in _CLAUDE_TYPES:
        reader: ClaudeCodeReader | ChatReader = ClaudeCodeReader()
    elif "role" in obj:
        reader = ChatReader()
    else:
        raise SgrKitError(
            f"{where(path, n)}: expected a trajectory line: a step (with kind), a Claude Code stream-json line "
            f"(with type), a chat message (with role) or a record (with steps or messages); found keys "
            f"{', '.join(map(str, obj)) or 'none'}"
        )
    reader.line(obj, loc=where(path, n))
    for n, line in lines:
        reader.line(_object(line, where(path, n)), loc=where(path, n))
    yield Trajectory(system, task_id, repeat, tuple(reader.finish()), str(path))


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def _repeat_order(path: Path) -> tuple:
    return (0, int(path.stem), "") if path.stem.isdigit() else (1, 0, path.name)


def _folder(root: Path) -> Iterator[Trajectory]:
    for entry in _visible(root):
        if entry.is_file():
            if entry.suffix.lower() == ".jsonl":
                yield from _records(entry)
            continue
        system = entry.name
        # tasks in name order (a task's file and its repeats folder side by side), repeats in number order
        for item in sorted(_visible(entry), key=lambda p: (p.stem if p.is_file() else p.name, p.is_dir())):
            if item.is_dir():
                for f in sorted(_visible(item), key=_repeat_order):
                    if not f.is_file() or f.suffix.lower() != ".jsonl" or not f.stem.isdigit():
                        raise SgrKitError(f"{f}: expected <system>/<task_id>/<repeat>.jsonl with a numeric repeat")
                    yield from _one_file(f, system, item.name, int(f.stem))
            elif item.suffix.lower() == ".jsonl":
                yield from _one_file(item, system, item.stem, 0)
            else:
                raise SgrKitError(f"{item}: expected a trajectory file <system>/<task_id>.jsonl; "
                                  f"found suffix '{item.suffix}'")  # fmt: skip


def _sources(source: Any) -> list[Path]:
    if isinstance(source, (str, os.PathLike)):
        return [Path(source)]
    if isinstance(source, Iterable):
        return [Path(s) for s in source]
    raise SgrKitError(f"trajectories: expected a path or a list of paths; found {type(source).__name__}")


def iter_trajectories(source: Any) -> Iterator[Trajectory]:
    """Yield the trajectories of a JSONL file or a folder (or several), one at a time.

    Parameters
    ----------
    source : path or list of paths
        See the module docstring for the accepted layouts.

    Yields
    ------
    Trajectory
        In file order (a folder's systems, tasks and repeats sorted by name).

    Raises
    ------
    SgrKitError
        A missing source, a line that is not JSON, a malformed step (naming file, line and
        step), a duplicate ``(system, task_id, repeat)`` (naming both places).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trajectories.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_001", "steps": [{"kind": "answer", "text": "a|1"}]}\\n')
    >>> [(tr.system, tr.task_id, tr.repeat, tr.answer) for tr in iter_trajectories(path)]
    [('s', 't_001', 0, 'a|1')]
    """
    seen: dict[tuple[str, str, int], str] = {}
    for path in _sources(source):
        if path.is_dir():
            found = _folder(path)
        elif path.is_file():
            if path.suffix.lower() != ".jsonl":
                raise SgrKitError(f"trajectories {path}: expected a .jsonl file or a folder; found '{path.suffix}'")
            found = _records(path)
        else:
            raise SgrKitError(f"trajectories {path}: no such file or folder")
        for trajectory in found:
            key = (trajectory.system, trajectory.task_id, trajectory.repeat)
            if key in seen:
                raise SgrKitError(
                    f"{trajectory.source}: duplicate trajectory for system {key[0]!r}, task {key[1]}, repeat "
                    f"{key[2]} (first at {seen[key]})"
                )
            seen[key] = trajectory.source
            yield trajectory


def steps_frame(trajectories: Iterable[Trajectory]) -> pd.DataFrame:
    """The steps table (:data:`sgr_kit.schema.STEP_COLUMNS`) of ``trajectories``, built in chunks.

    Examples
    --------
    >>> from sgr_kit.trajectories.steps import Step
    >>> steps_frame([Trajectory("s", "t", 0, (Step("search", query="q"), Step("answer", text="x")))]).shape
    (2, 12)
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


def load_trajectories(path: Any) -> pd.DataFrame:
    """Read trajectories into the tidy steps table: one row per step.

    Parameters
    ----------
    path : path or list of paths
        A JSONL file of trajectory records, or a ``<system>/<task_id>[/<repeat>].jsonl`` folder
        of documented steps, Claude Code ``stream-json`` transcripts or OpenAI-style chat
        messages (see :mod:`sgr_kit.trajectories`).

    Returns
    -------
    DataFrame
        Columns ``system, task_id, repeat, step, kind, tool, url, host, query, text, t, tokens``
        (:data:`sgr_kit.schema.STEP_COLUMNS`): ``step`` counts from 0 within a trajectory;
        ``kind`` is one of ``search, fetch, pdf, tool, message, answer``; ``host`` is the
        normalised host of ``url`` (:func:`~sgr_kit.trajectories.host_of`); absent text is
        ``""``; ``t`` (seconds since the trajectory's start) is NaN and ``tokens`` <NA> when
        unknown. Texts other than the answer are excerpts of at most 500 characters.

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
    return steps_frame(iter_trajectories(path))


def trajectory_answers(source: Any) -> Iterator[tuple[str, str, int, str | None, str]]:
    """``(system, task_id, repeat, answer or None, source)`` of every trajectory, streamed (for ``load_runs``)."""
    for tr in iter_trajectories(source):
        yield tr.system, tr.task_id, tr.repeat, tr.answer, tr.source


def is_trajectory_source(path: Any) -> bool:
    """True when ``path`` holds trajectories rather than answers (looked up without reading it whole).

    A folder is one when a system folder in it holds ``.jsonl`` files (answers are
    ``.md``/``.txt``/``.json``); a JSONL file when its first record has ``steps`` or ``messages``.
    """
    path = Path(path)
    try:
        if path.is_dir():
            for entry in _visible(path):
                if entry.is_dir():
                    for item in _visible(entry):
                        if item.suffix.lower() == ".jsonl" or (item.is_dir() and any(
                                f.suffix.lower() == ".jsonl" for f in _visible(item))):  # fmt: skip
                            return True
                elif entry.suffix.lower() == ".jsonl" and _first_record_is_trajectory(entry):
                    return True
            return False
        if path.is_file() and path.suffix.lower() == ".jsonl":
            return _first_record_is_trajectory(path)
    except (OSError, SgrKitError):
        return False
    return False


def _first_record_is_trajectory(path: Path) -> bool:
    for n, line in _lines(path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            return False
        return isinstance(obj, dict) and ("steps" in obj or "messages" in obj)
    return False
