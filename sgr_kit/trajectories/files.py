"""Read one trajectory file, whatever its format: told by its content, or forced.

:func:`read_file` takes a file and its **place** (``(system, task_id, repeat)`` from a folder's
layout, :mod:`~sgr_kit.trajectories.layout`) or None for a file given by itself, and yields its
trajectories:

- an inspect_ai eval log: one trajectory per sample and epoch (:mod:`~sgr_kit.trajectories.inspect_log`);
  in a system's folder the folder names the system, the samples their tasks and epochs;
- a file of trajectory records (:mod:`~sgr_kit.trajectories.records`);
- any other format of :data:`~sgr_kit.trajectories.formats.FORMATS`, one trajectory per file,
  read one line at a time (a JSON document whole). A file given by itself takes the model it
  names as its system (the main one: most output tokens) and its name without suffix as its
  task (``system=`` and ``task_id=`` say otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import SgrKitError, where
from . import inspect_log
from .formats import TrajectoryFormat, find_format, is_inspect_file, sniff
from .notes import NoteSink, ReaderNote
from .records import calls_totals, document, is_document, json_object, lines, record_trajectories
from .steps import Trajectory, active_tool_kinds, using_tool_kinds

__all__ = ["ReadOptions", "read_file", "main_model"]

#: How notes name lines that are not JSON, skipped in an agent's output stream.
SKIPPED_LINES = "lines that are not JSON skipped (an agent's output stream: a runner's log lines)"


@dataclass
class ReadOptions:
    """What one read applies to every file: the notes, a forced format, the user's tool kinds.

    Attributes
    ----------
    notes : NoteSink
    forced : TrajectoryFormat or None
    kinds : mapping or None
    """

    notes: NoteSink
    forced: TrajectoryFormat | None = None
    kinds: Mapping[str, str] | None = None

    @classmethod
    def make(cls, notes: NoteSink, format: str | None, kinds: Mapping[str, str] | None) -> "ReadOptions":
        """The options of a read, the format looked up by name."""
        return cls(notes, find_format(format), kinds)


def main_model(totals: dict | None) -> str:
    """The main model a trajectory's totals name (the first of ``model``), ``""`` when none.

    Examples
    --------
    >>> main_model({"model": "claude-sonnet-5, claude-haiku-4-5"})
    'claude-sonnet-5'
    """
    model = (totals or {}).get("model")
    return model.split(", ")[0].strip() if isinstance(model, str) else ""


def read_file(path: Path, place: tuple[str, str, int] | None, options: ReadOptions) -> Iterator[Trajectory]:
    """The trajectories of one file at ``place`` (None: a file given by itself).

    A file given by itself that is not records or an eval log gets the system ``""`` when it
    names no model; the caller gives it one (``system=``) or says it is missing.
    """
    if is_inspect_file(path, options.forced):
        yield from _inspect(path, place, options)
        return
    forced = options.forced
    for fmt in ([forced] if forced is not None else []):
        if fmt.objects is not None:
            reader = fmt.reader()
            for loc, obj in fmt.objects(path):
                _feed(reader, obj, loc, options.kinds)
            yield _trajectory(reader, fmt, place, path, options)
            return
    yield from _json_file(path, place, options)


def _inspect(path: Path, place: tuple[str, str, int] | None, options: ReadOptions) -> Iterator[Trajectory]:
    """An inspect_ai eval log: one trajectory per sample and epoch (in a system's folder, of that system)."""
    options.notes.read_as(inspect_log.LABEL)
    found = inspect_log.read_inspect_log(path, notes=options.notes)
    if place is None:
        yield from found
        return
    system, task_id, repeat = place
    if task_id:  # <system>/<task_id>[/<repeat>].eval given its place: the folders name the task and the repeat
        trajectories = list(found)
        if len(trajectories) != 1:
            raise SgrKitError(f"{path}: an inspect_ai log at <system>/<task_id>/<repeat>.eval must hold one sample "
                              f"and epoch (that repeat's trajectory); it holds {len(trajectories)}: put it in the "
                              "system's folder itself to read each sample under its own id and epoch")  # fmt: skip
        tr = trajectories[0]
        yield Trajectory(system, task_id, repeat, tr.steps, tr.source, tr.format, tr.totals, tr.calls_totals)
        return
    for tr in found:  # <system>/<file>.eval: the folder names the system; each sample its task, each epoch its repeat
        yield Trajectory(system, tr.task_id, tr.repeat, tr.steps, tr.source, tr.format, tr.totals, tr.calls_totals)


def _feed(reader: Any, obj: dict, loc: str, kinds: Mapping[str, str] | None) -> None:
    if kinds is None and active_tool_kinds() is None:
        reader.line(obj, loc=loc)
        return
    with using_tool_kinds(kinds):
        reader.line(obj, loc=loc)


def _trajectory(reader: Any, fmt: TrajectoryFormat, place: tuple[str, str, int] | None, path: Path,
                options: ReadOptions) -> Trajectory:
    with using_tool_kinds(options.kinds):
        steps = reader.finish()
    if fmt.name not in ("steps", "records"):  # the documented formats go without saying
        options.notes.read_as(fmt.label)
    # what the reader corrected, and read but made no step of (errors the agent reported, unknown types)
    options.notes.extend(getattr(reader, "notes", ()), file=str(path))
    totals = getattr(reader, "totals", None)
    if place is None:
        place = (main_model(totals), path.stem, 0)
    return Trajectory(*place, tuple(steps), str(path), fmt.name, totals, calls_totals(reader))


def _looks_cut(line: str) -> bool:
    """A JSON-looking line a runner broke (an interleaved write): not a whole object, so skipped in a stream."""
    return not line.rstrip().endswith(("}", "]"))


def _json_file(path: Path, place: tuple[str, str, int] | None, options: ReadOptions) -> Iterator[Trajectory]:
    """A file of JSON lines (or one JSON document), its format told by its first object."""
    notes, file = options.notes, str(path)
    found = lines(path)
    skipped: list[tuple[int, str]] = []
    first = None
    for n, line in found:
        if is_document(line) and not skipped:
            found.close()
            yield from _document_file(path, place, options)
            return
        try:
            obj = json_object(line, where(path, n), notes, file=file)
        except SgrKitError:
            if line.lstrip().startswith(("{", "[")) and not _looks_cut(line):
                raise  # JSON that cannot be read (a huge number, deep nesting, a list): its own error
            skipped.append((n, line))
            if len(skipped) > 1000:
                break
            continue
        first = (n, obj)
        break
    if first is None:
        if not skipped and place is None:
            return  # an empty file of records
        if skipped:
            json_object(skipped[0][1], where(path, skipped[0][0]))  # raises: the first line that is not JSON
        raise SgrKitError(f"{path}: empty; expected a trajectory (one step, message or stream-json line per line)")
    n, obj = first
    fmt = options.forced or sniff(obj)
    if fmt is None and place is None and ("system" in obj or "task_id" in obj):
        fmt = find_format("records")  # a file by itself naming its system or task: records (their errors)
    if fmt is None:
        raise SgrKitError(
            f"{where(path, n)}: expected a trajectory line: a step (with kind), a Claude Code stream-json line "
            f"(with type), a chat message (with role), a Responses API item (with type) or a record (with steps "
            f"or messages); found keys {', '.join(map(str, obj))[:200] or 'none'}"
        )
    if skipped and not fmt.streamed:
        json_object(skipped[0][1], where(path, skipped[0][0]))  # raises: not JSON
    count, first_skip = len(skipped), (where(path, skipped[0][0]) if skipped else "")
    if fmt.reader is None:  # records
        found.close()
        yield from record_trajectories(path, notes, place=place, kinds=options.kinds)
        return
    reader = fmt.reader()
    _feed(reader, obj, where(path, n), options.kinds)
    for n, line in found:
        loc = where(path, n)
        if fmt.streamed:
            try:
                obj = json_object(line, loc, notes, file=file)
            except SgrKitError:
                if line.lstrip().startswith(("{", "[")) and not _looks_cut(line):
                    raise
                count += 1
                first_skip = first_skip or loc
                continue
        else:
            obj = json_object(line, loc, notes, file=file)
        _feed(reader, obj, loc, options.kinds)
    if count:
        notes.add(ReaderNote(SKIPPED_LINES, file, f"{count} line{'s' if count > 1 else ''} not JSON skipped (an "
                             f"agent's output stream; first at {first_skip})"), file=file)  # fmt: skip
    yield _trajectory(reader, fmt, place, path, options)


def _document_file(path: Path, place: tuple[str, str, int] | None, options: ReadOptions) -> Iterator[Trajectory]:
    """A JSON document holding one trajectory: a record, a list of records, or a list of steps, messages or items."""
    doc = document(path, options.notes)
    items = doc if isinstance(doc, list) else [doc]
    if not items:
        raise SgrKitError(f"{path}: an empty list; expected a trajectory (steps, messages or records)")
    first = items[0]
    if not isinstance(first, dict) and place is None:
        yield from record_trajectories(path, options.notes, kinds=options.kinds)  # a file by itself: records
        return
    if not isinstance(first, dict):
        raise SgrKitError(f"{path}: element 0: expected a JSON object; found {type(first).__name__}")
    fmt = options.forced or sniff(first)
    if fmt is None:
        raise SgrKitError(f"{path}: element 0: expected a step, a chat message, a stream-json line, a Responses "
                          f"API item or a record; found keys {', '.join(map(str, first))[:200] or 'none'}")  # fmt: skip
    if fmt.reader is None:
        yield from record_trajectories(path, options.notes, place=place, kinds=options.kinds)
        return
    reader = fmt.reader()
    if fmt.objects is not None:  # a document that goes on in other files (a Harbor trajectory's continuation)
        for loc, obj in fmt.objects(path):
            _feed(reader, obj, loc, options.kinds)
        yield _trajectory(reader, fmt, place, path, options)
        return
    for i, obj in enumerate(items):
        loc = f"{path}: element {i}" if isinstance(doc, list) else str(path)
        if not isinstance(obj, dict):
            raise SgrKitError(f"{loc}: expected a JSON object; found {type(obj).__name__}")
        _feed(reader, obj, loc, options.kinds)
    yield _trajectory(reader, fmt, place, path, options)
