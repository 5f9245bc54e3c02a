"""Read trajectories from files and folders, one line at a time.

Sources (:func:`iter_trajectories`, :func:`load_trajectories`):

- a **JSONL file** of records, one per line: ``{"system", "task_id", "repeat" (optional, default
  0), "steps": [step, ...], "answer" (optional)}`` in the documented step format
  (:mod:`~sgr_kit.trajectories.steps`), or with ``"messages": [...]`` (OpenAI-style chat
  messages) instead of ``steps``; or a **JSON file** holding such a record or a list of them. A
  record's ``answer``, when given, is its final answer (it becomes the last ``answer`` step when
  the steps hold none; a last ``message`` step of the same text becomes that answer);
- a **folder** ``<system>/<task_id>.<ext>`` or ``<system>/<task_id>/<repeat>.<ext>`` (``ext`` one of
  ``jsonl``, ``json``, ``txt``, ``eval``): each file one trajectory in any of the formats of
  :data:`FORMATS`, told by its content, not its suffix (its first JSON object, or for a JSON
  document its first element): documented steps, one per line (a ``kind``); a record as above
  (its system, task and repeat, when written, must agree with the file's place); a Claude Code
  ``stream-json`` transcript or session log; Codex CLI ``exec --json`` events or a session
  rollout (:mod:`~sgr_kit.trajectories.codex`); OpenAI Responses API items; OpenAI-style chat
  messages (a ``role``); a JSON document holding a list of steps, messages or items; or an
  inspect_ai eval log holding one sample. JSONL and JSON files directly in the folder are record
  files, inspect_ai logs there give one trajectory per sample and epoch (so an eval set's log
  folder reads as it is; its index files ``logs.json`` and ``eval-set.json`` are left aside). Hidden files are
  ignored; a FIFO or any other file that is not a regular file is skipped with a note;
- an **inspect_ai eval log** (``.eval``, or its ``.json`` form), read with inspect_ai's own
  reader (:mod:`~sgr_kit.trajectories.inspect_log`; the optional ``sgr-kit[inspect]``): one
  trajectory per sample and epoch.

A transcript saved from an agent's standard output (Claude Code ``stream-json`` in a ``.txt``)
may hold lines that are not JSON (a runner's log lines): in the formats an agent streams they
are skipped with a note; in the documented formats they are errors. Every JSONL file is read
line by line (a line may hold at most :data:`MAX_LINE_BYTES`): only the current trajectory is
held, never a whole file (a JSON document is read whole, within the same limit). Errors name
the file, the line and the step (counted from 0 within the trajectory). What a source was read
as is said in a note (:class:`TrajectoryNote`) when it is not the documented format.

**Formats** are a registry (:data:`FORMATS`, :func:`register_format`): a name, a label for
notes, a ``sniff`` that tells the format from a file's first JSON object, and a reader factory
(an object with ``line(obj, *, loc)``, ``finish() -> list[Step]`` and a ``totals`` attribute).
"""

from __future__ import annotations

import json
import re
import stat
import warnings
from collections import Counter
from dataclasses import dataclass, field
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from ..errors import SgrKitError, where
from ..schema import STEP_COLUMNS, STEP_KINDS
from . import codex, inspect_log
from .agents import RESPONSES_TYPES, ChatReader, ClaudeCodeReader, ClaudeSessionReader, ResponsesReader
from .steps import (Step, Trajectory, active_tool_kinds, native_step, read_tool_kinds, record_totals,
                    using_tool_kinds)

__all__ = [
    "iter_trajectories", "load_trajectories", "trajectory_answers", "is_trajectory_source", "steps_frame",
    "FORMATS", "TrajectoryFormat", "register_format", "format_names", "TrajectoryNote", "MAX_LINE_BYTES",
    "TRAJECTORY_SUFFIXES",
]  # fmt: skip

#: The longest line (and JSON document) a trajectory file may hold, in bytes.
MAX_LINE_BYTES = 64 * 2**20
#: Suffixes of the trajectory files of a folder ``<system>/<task_id>[/<repeat>].<suffix>``.
TRAJECTORY_SUFFIXES = (".jsonl", ".json", ".txt", ".eval")
_CHUNK_ROWS = 50_000
_REPEAT_MAX = 2**63 - 1
_DIGITS = re.compile(r"[0-9]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TrajectoryNote(UserWarning):
    """What a trajectory source was read as, and what was skipped in it (a note, not an error)."""


class NativeReader:
    """Documented steps, one per line (:func:`~sgr_kit.trajectories.steps.native_step`)."""

    totals = None

    def __init__(self) -> None:
        self.steps: list[Step] = []

    def line(self, obj: dict, *, loc: str) -> None:
        self.steps.append(native_step(obj, loc=f"{loc}: step {len(self.steps)}"))

    def finish(self) -> list[Step]:
        return self.steps

    def calls_usage(self) -> list[tuple]:
        fields = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
        return [tuple(getattr(s, f) for f in fields) for s in self.steps
                if any(getattr(s, f) is not None for f in fields)]  # fmt: skip


_CLAUDE_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event", "rate_limit_event"})
_SESSION_TYPES = frozenset({"summary", "file-history-snapshot", "last-prompt", "permission-mode", "mode",
                            "queue-operation", "ai-title", "progress"})  # fmt: skip


def _type(obj: dict) -> str:
    kind = obj.get("type")
    return kind if isinstance(kind, str) else ""


def _is_session(obj: dict) -> bool:
    return _type(obj) in _SESSION_TYPES or ("parentUuid" in obj and _type(obj) in _CLAUDE_TYPES)


def _is_responses(obj: dict) -> bool:
    if obj.get("object") == "response":
        return True
    kind = _type(obj)
    if kind == "message":  # a Responses message item has typed content parts; a chat message has none
        return isinstance(obj.get("content"), list)
    return kind in RESPONSES_TYPES


@dataclass(frozen=True)
class TrajectoryFormat:
    """One format of trajectory file: how it is told from others and read.

    Attributes
    ----------
    name : str
        What ``format=`` (and ``--trajectory-format``) forces, e.g. ``"claude-code"``.
    label : str
        How notes name it ("read as Claude Code stream-json").
    sniff : callable
        ``sniff(first JSON object) -> bool``.
    reader : callable or None
        ``reader()`` -> an object with ``line(obj, *, loc)``, ``finish() -> list[Step]`` and
        ``totals`` (a dict of :data:`~sgr_kit.trajectories.steps.TOTAL_KEYS` or None); None for
        the record formats read by this module itself.
    streamed : bool
        An agent's own output stream: lines that are not JSON are skipped with a note.
    sniff_path, objects : callable or None
        For a format that is not JSON lines (a zip archive): ``sniff_path(path) -> bool`` tells
        it by its bytes, ``objects(path)`` yields ``(loc, obj)`` for the reader.
    """

    name: str
    label: str
    sniff: Callable[[dict], bool]
    reader: Callable[[], Any] | None
    streamed: bool = False
    sniff_path: Callable[[Path], bool] | None = None
    objects: Callable[[Path], Iterator[tuple[str, dict]]] | None = field(default=None)


#: The formats, in the order they are tried (the first whose ``sniff`` says yes reads the file).
FORMATS: list[TrajectoryFormat] = [
    TrajectoryFormat("records", "trajectory records", lambda o: "steps" in o or "messages" in o, None),
    TrajectoryFormat("steps", "documented steps", lambda o: "kind" in o, NativeReader),
    TrajectoryFormat("claude-code-session", "Claude Code session log", _is_session, ClaudeSessionReader,
                     streamed=True),
    TrajectoryFormat("claude-code", "Claude Code stream-json",
                     lambda o: isinstance(o.get("type"), str) and o["type"] in _CLAUDE_TYPES, ClaudeCodeReader,
                     streamed=True),
    TrajectoryFormat("codex-exec", codex.EXEC_LABEL, codex.sniff_exec, codex.CodexExecReader, streamed=True),
    TrajectoryFormat("codex-rollout", codex.ROLLOUT_LABEL, codex.sniff_rollout, codex.CodexRolloutReader,
                     streamed=True),
    TrajectoryFormat("openai-responses", "OpenAI Responses API items", _is_responses, ResponsesReader),
    TrajectoryFormat("openai-chat", "OpenAI chat messages", lambda o: "role" in o, ChatReader),
    # not JSON lines: told by its bytes and read by inspect_ai itself (_inspect_file); listed for its name
    TrajectoryFormat(inspect_log.FORMAT, inspect_log.LABEL, lambda o: False, None),
]  # fmt: skip


def register_format(fmt: TrajectoryFormat, *, before: str | None = None) -> None:
    """Add a format to :data:`FORMATS` (before the one named ``before``, else before the chat messages).

    Chat messages are told only by a ``role``, so a format with its own ``type`` values goes
    before them. A format of the same name is replaced.
    """
    names = [f.name for f in FORMATS]
    if fmt.name in names:
        FORMATS[names.index(fmt.name)] = fmt
        return
    anchor = before if before is not None else "openai-chat"
    FORMATS.insert(names.index(anchor) if anchor in names else len(FORMATS), fmt)


def format_names() -> list[str]:
    """The names ``format=`` accepts."""
    return [f.name for f in FORMATS]


def _format(name: str | None) -> TrajectoryFormat | None:
    if name is None:
        return None
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise SgrKitError(f"trajectories: unknown format {name!r}; expected one of {', '.join(format_names())}")


def _sniff(obj: dict) -> TrajectoryFormat | None:
    return next((f for f in FORMATS if f.sniff(obj)), None)


def _raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """The lines of a file as bytes with their 1-based numbers, each at most :data:`MAX_LINE_BYTES`."""
    limit = MAX_LINE_BYTES
    try:
        with open(path, "rb") as handle:
            n = 0
            while True:
                raw = handle.readline(limit + 1)
                if not raw:
                    return
                n += 1
                if len(raw) > limit and not raw.endswith(b"\n"):
                    raise SgrKitError(f"{where(path, n)}: line longer than {limit:,} bytes (the limit of a trajectory "
                                      "line); is this a trajectory file?")  # fmt: skip
                yield n, raw
    except OSError as exc:
        raise SgrKitError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their 1-based numbers, read one at a time.

    Lines end at ``\\n`` only (a ``\\r`` before it is dropped), as in every JSONL reader of sgr-kit.
    """
    for n, raw in _raw_lines(path):
        try:
            line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise SgrKitError(f"{where(path, n)}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
        line = line.rstrip("\r\n")
        if line.strip():
            yield n, line


def _valid_unicode(value: Any) -> tuple[Any, int]:
    """``value`` (JSON data) with every lone surrogate replaced by U+FFFD, and how many were replaced."""
    if isinstance(value, str):
        return _SURROGATE.subn("\ufffd", value)
    if isinstance(value, list):
        pairs = [_valid_unicode(v) for v in value]
        total = sum(n for _, n in pairs)
        return ([v for v, _ in pairs], total) if total else (value, 0)
    if isinstance(value, dict):
        pairs = {k: _valid_unicode(v) for k, v in value.items()}
        total = sum(n for _, n in pairs.values())
        return ({_SURROGATE.sub("\ufffd", k): v for k, (v, _) in pairs.items()}, total) if total or any(
            _SURROGATE.search(k) for k in value) else (value, 0)  # fmt: skip
    return value, 0


def _parse(text: str, loc: str, notes: "_Notes | None" = None) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SgrKitError(f"{loc}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise SgrKitError(f"{loc}: JSON nested too deeply to read (more levels of lists or objects than Python's "
                          "recursion limit)") from None  # fmt: skip
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise SgrKitError(f"{loc}: a number cannot be read (an integer of more digits than Python converts; "
                          "no count or time has that many)") from None
    if "\\u" in text:  # (JSON spells its escapes \\uXXXX, in lower case)
        try:
            value, replaced = _valid_unicode(value)
        except RecursionError:
            raise SgrKitError(f"{loc}: JSON nested too deeply to read") from None
        if replaced and notes is not None:
            notes.surrogate(loc)
    return value


def _object(line: str, loc: str, notes: "_Notes | None" = None) -> dict:
    value = _parse(line, loc, notes)
    if not isinstance(value, dict):
        raise SgrKitError(f"{loc}: expected a JSON object; found {type(value).__name__}")
    return value


def _repeat(value: Any, loc: str) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _REPEAT_MAX:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()) and int(value) <= _REPEAT_MAX:
        return int(value)
    raise SgrKitError(f"{loc}: repeat should be an integer >= 0 (at most {_REPEAT_MAX}); found {value!r:.60}")


def _name(value: Any, what: str, loc: str) -> str:
    text = str(value).strip() if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)
                                                          and abs(value) < 10**100) else ""  # fmt: skip
    if not text:
        raise SgrKitError(f"{loc}: {what} is missing or empty (or not text); every trajectory needs its {what}")
    return _SURROGATE.sub("\ufffd", text)


def _one_answer(steps: list[Step], answer: str) -> list[Step]:
    """``steps`` with ``answer`` as the last step: a last message of the same text becomes it."""
    if steps and steps[-1].kind == "message" and "".join(steps[-1].text.split()) == "".join(answer.split()):
        steps[-1] = steps[-1]._replace(kind="answer", text=answer)
    else:
        steps.append(Step(kind="answer", text=answer))
    return steps


def _record(record: dict, loc: str, default: tuple[str, str, int] | None,
            kinds: Mapping[str, str] | None = None) -> Trajectory:
    if default is None:
        system = _name(record.get("system"), "system", loc)
        task_id = _name(record.get("task_id"), "task_id", loc)
        repeat = _repeat(record.get("repeat"), loc)
    else:
        system, task_id, repeat = default
        for key, value in zip(("system", "task_id", "repeat"), default):
            given = record.get(key)
            if given is not None and str(given).strip()[:200] != str(value):
                raise SgrKitError(f"{loc}: {key} is {given!r:.60} but the file's place in the folder says {value!r}")
    with using_tool_kinds(kinds):
        steps, fmt, calls = _record_steps(record, loc)
    totals = record_totals(record.get("totals"), loc=loc)
    return Trajectory(system, task_id, repeat, tuple(steps), loc, fmt, totals, calls)


def _record_steps(record: dict, loc: str) -> tuple[list[Step], str, dict | None]:
    """The steps of one record (documented steps or chat messages), with its answer, and the format."""
    if "steps" in record:
        raw = record["steps"]
        if not isinstance(raw, list):
            raise SgrKitError(f"{loc}: steps must be a list of step objects; found {type(raw).__name__}")
        reader: Any = NativeReader()
        for i, s in enumerate(raw):
            reader.steps.append(native_step(s, loc=f"{loc}: step {i}"))
        steps = reader.finish()
        fmt = "steps"
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
        fmt = "openai-chat"
    else:
        raise SgrKitError(f"{loc}: expected a trajectory record with steps (or messages); found keys "
                          f"{', '.join(map(str, record)) or 'none'}")  # fmt: skip
    answer = record.get("answer")
    if answer is not None:
        if not isinstance(answer, str):
            raise SgrKitError(f"{loc}: answer must be text or null; found {type(answer).__name__}")
        if not any(s.kind == "answer" for s in steps):
            steps = _one_answer(steps, answer)
    return steps, fmt, _calls_totals(reader)


class _Notes:
    """What was read as what, and what was skipped: one note per source at its end."""

    def __init__(self, sink: Callable[[str], None] | None) -> None:
        self.sink = sink
        self.formats: Counter = Counter()
        self.skipped: dict[str, list] = {}  # file -> [count, first line]
        self.surrogates: list[str] = []
        self.other: list[str] = []

    def read_as(self, fmt: str) -> None:
        self.formats[fmt] += 1

    def skip(self, path: Path, loc: str) -> None:
        entry = self.skipped.setdefault(str(path), [0, loc])
        entry[0] += 1

    def surrogate(self, loc: str) -> None:
        self.surrogates.append(loc)

    def flush(self, source: Path) -> None:
        labels = {f.name: f.label for f in FORMATS}
        out = []
        if self.formats and set(self.formats) - {"steps", "records"}:
            parts = [f"{n} file{'s' if n > 1 else ''} as {labels.get(name, name)}"
                     for name, n in self.formats.most_common()]  # fmt: skip
            out.append(f"{source}: read {', '.join(parts)}")
        for path, (count, first) in self.skipped.items():
            out.append(f"{path}: {count} line{'s' if count > 1 else ''} not JSON skipped (an agent's output stream; "
                       f"first at {first})")  # fmt: skip
        if self.surrogates:
            out.append(f"{source}: {len(self.surrogates)} line(s) hold lone surrogate escapes (\\ud800-\\udfff: no "
                       f"Unicode character; first at {self.surrogates[0]}); each was replaced by U+FFFD")  # fmt: skip
        out += self.other
        self.formats.clear(), self.skipped.clear(), self.surrogates.clear(), self.other.clear()
        for text in out:
            if self.sink is not None:
                self.sink(text)
            else:
                warnings.warn(text, TrajectoryNote, stacklevel=4)


def _records(path: Path, notes: _Notes, *, default: tuple[str, str, int] | None = None,
             kinds: Mapping[str, str] | None = None) -> Iterator[Trajectory]:
    """The trajectories of a file of records: JSON lines, or one JSON document (a record or a list of them)."""
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        return
    n, line = first
    if _is_document(line):
        lines.close()
        yield from _document_records(path, notes, default, kinds)
        return
    notes.read_as("records")
    for n, line in _chain(first, lines):
        loc = where(path, n)
        yield _record(_object(line, loc, notes), loc, default, kinds)


def _chain(first: tuple[int, str], rest: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield first
    yield from rest


def _is_document(line: str) -> bool:
    """Does a file whose first non-blank line is ``line`` hold one JSON document (not JSON lines)?"""
    head = line.lstrip("\ufeff \t")
    if head.startswith(("[", "{")):
        try:
            json.loads(head)
        except json.JSONDecodeError as exc:
            return exc.pos >= len(head.rstrip())  # the text ran out: an object spread over several lines
        except (ValueError, RecursionError):
            return False  # a line that cannot be read: its error names the line
        return head.startswith("[")  # a whole JSON list on one line
    return False


def _document(path: Path, notes: _Notes) -> Any:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SgrKitError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if size > MAX_LINE_BYTES:
        raise SgrKitError(f"{path}: a JSON document of {size:,} bytes, more than {MAX_LINE_BYTES:,} (the limit of "
                          "one trajectory document); write it as JSON lines")  # fmt: skip
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SgrKitError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise SgrKitError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return _parse(text, str(path), notes)


def _document_records(path: Path, notes: _Notes, default: tuple[str, str, int] | None,
                      kinds: Mapping[str, str] | None) -> Iterator[Trajectory]:
    doc = _document(path, notes)
    items = doc if isinstance(doc, list) else [doc]
    notes.read_as("records")
    for i, record in enumerate(items):
        loc = f"{path}: record {i}" if isinstance(doc, list) else str(path)
        if not isinstance(record, dict):
            raise SgrKitError(f"{loc}: expected a trajectory record (an object with steps or messages); "
                              f"found {type(record).__name__}")  # fmt: skip
        yield _record(record, loc, default, kinds)


def _feed(reader: Any, obj: dict, loc: str, kinds: Mapping[str, str] | None) -> None:
    if kinds is None and active_tool_kinds() is None:
        reader.line(obj, loc=loc)
        return
    with using_tool_kinds(kinds):
        reader.line(obj, loc=loc)


def _trajectory(reader: Any, fmt: TrajectoryFormat, place: tuple[str, str, int], source: str,
                kinds: Mapping[str, str] | None, notes: _Notes | None = None) -> Trajectory:
    with using_tool_kinds(kinds):
        steps = reader.finish()
    if notes is not None:  # what the reader read but made no step of (errors the agent reported, unknown types)
        notes.other.extend(n if n.startswith(source) else f"{source}: {n}" for n in getattr(reader, "notes", ()))
    return Trajectory(*place, tuple(steps), source, fmt.name, getattr(reader, "totals", None),
                      _calls_totals(reader))  # fmt: skip


def _calls_totals(reader: Any) -> dict | None:
    """The per-call usage summed, field by field, when every call's value is known (else None for that field)."""
    calls = reader.calls_usage() if hasattr(reader, "calls_usage") else None
    if calls is None:
        return None
    keys = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
    if not calls:
        return dict.fromkeys(keys)
    return {k: (None if any(c[i] is None for c in calls) else sum(c[i] for c in calls)) for i, k in enumerate(keys)}


def _inspect_file(path: Path, notes: _Notes, place: tuple[str, str, int] | None = None) -> Iterator[Trajectory]:
    """The trajectories of an inspect_ai eval log (one per sample and epoch), read by inspect_ai itself.

    A log given as ``<system>/<task_id>[/<repeat>].eval`` must hold one sample, which takes that place.
    """
    notes.read_as(inspect_log.FORMAT)
    if place is None:
        yield from inspect_log.read_inspect_log(path)
        return
    found = list(inspect_log.read_inspect_log(path))
    if len(found) != 1:
        raise SgrKitError(f"{path}: an inspect_ai log in a system's folder must hold one sample (it is that "
                          f"task's trajectory); it holds {len(found)}: give the log itself, or put it at the top "
                          f"of the folder, to read each sample under its own id")  # fmt: skip
    tr = found[0]
    yield Trajectory(*place, tr.steps, tr.source, tr.format, tr.totals, tr.calls_totals)


def _one_file(path: Path, place: tuple[str, str, int], notes: _Notes, forced: TrajectoryFormat | None,
              kinds: Mapping[str, str] | None) -> Iterator[Trajectory]:
    """The trajectory of one file of a folder (its format told by its content)."""
    if (forced is None or forced.name == inspect_log.FORMAT) and inspect_log.is_inspect_log(path):
        yield from _inspect_file(path, notes, place)
        return
    if forced is not None and forced.name == inspect_log.FORMAT:
        raise SgrKitError(f"{path}: not an inspect_ai eval log (a .eval archive or its .json form), as format "
                          f"{inspect_log.FORMAT!r} says")  # fmt: skip
    for fmt in ([forced] if forced is not None else FORMATS):
        if fmt.objects is not None and (forced is not None or (fmt.sniff_path is not None and fmt.sniff_path(path))):
            reader = fmt.reader()
            for loc, obj in fmt.objects(path):
                _feed(reader, obj, loc, kinds)
            notes.read_as(fmt.name)
            yield _trajectory(reader, fmt, place, str(path), kinds, notes)
            return
    lines = _lines(path)
    skipped: list[tuple[int, str]] = []
    first = None
    for n, line in lines:
        if _is_document(line) and not skipped:
            lines.close()
            yield from _document_file(path, place, notes, forced, kinds)
            return
        try:
            obj = _object(line, where(path, n), notes)
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
        if skipped:
            n = skipped[0][0]
            _object(skipped[0][1], where(path, n))  # raises: the first line that is not JSON
        raise SgrKitError(f"{path}: empty; expected a trajectory (one step, message or stream-json line per line)")
    n, obj = first
    fmt = forced or _sniff(obj)
    if fmt is None:
        raise SgrKitError(
            f"{where(path, n)}: expected a trajectory line: a step (with kind), a Claude Code stream-json line "
            f"(with type), a chat message (with role), a Responses API item (with type) or a record (with steps "
            f"or messages); found keys {', '.join(map(str, obj))[:200] or 'none'}"
        )
    if skipped and not fmt.streamed:
        _object(skipped[0][1], where(path, skipped[0][0]))  # raises: not JSON
    for m, _ in skipped:
        notes.skip(path, where(path, m))
    if fmt.reader is None:  # records
        lines.close()
        yield from _records(path, notes, default=place, kinds=kinds)
        return
    notes.read_as(fmt.name)
    reader = fmt.reader()
    _feed(reader, obj, where(path, n), kinds)
    for n, line in lines:
        loc = where(path, n)
        if fmt.streamed:
            try:
                obj = _object(line, loc, notes)
            except SgrKitError:
                if line.lstrip().startswith(("{", "[")) and not _looks_cut(line):
                    raise
                notes.skip(path, loc)
                continue
        else:
            obj = _object(line, loc, notes)
        _feed(reader, obj, loc, kinds)
    yield _trajectory(reader, fmt, place, str(path), kinds, notes)


def _looks_cut(line: str) -> bool:
    """A JSON-looking line a runner broke (an interleaved write): not a whole object, so skipped in a stream."""
    return not line.rstrip().endswith(("}", "]"))


def _document_file(path: Path, place: tuple[str, str, int], notes: _Notes, forced: TrajectoryFormat | None,
                   kinds: Mapping[str, str] | None) -> Iterator[Trajectory]:
    """A JSON document holding one trajectory: a record, a list of records, or a list of steps, messages or items."""
    doc = _document(path, notes)
    items = doc if isinstance(doc, list) else [doc]
    if not items:
        raise SgrKitError(f"{path}: an empty list; expected a trajectory (steps, messages or records)")
    first = items[0]
    if not isinstance(first, dict):
        raise SgrKitError(f"{path}: element 0: expected a JSON object; found {type(first).__name__}")
    fmt = forced or _sniff(first)
    if fmt is None:
        raise SgrKitError(f"{path}: element 0: expected a step, a chat message, a stream-json line, a Responses "
                          f"API item or a record; found keys {', '.join(map(str, first))[:200] or 'none'}")  # fmt: skip
    if fmt.reader is None:
        notes.read_as("records")
        for i, record in enumerate(items):
            loc = f"{path}: record {i}" if isinstance(doc, list) else str(path)
            if not isinstance(record, dict):
                raise SgrKitError(f"{loc}: expected a trajectory record; found {type(record).__name__}")
            yield _record(record, loc, place, kinds)
        return
    notes.read_as(fmt.name)
    reader = fmt.reader()
    for i, obj in enumerate(items):
        loc = f"{path}: element {i}"
        if not isinstance(obj, dict):
            raise SgrKitError(f"{loc}: expected a JSON object; found {type(obj).__name__}")
        _feed(reader, obj, loc, kinds)
    yield _trajectory(reader, fmt, place, str(path), kinds, notes)


#: The files inspect_ai's ``eval_set`` writes beside its logs (with a hidden ``.eval-set-id``).
_EVAL_SET_FILES = ("logs.json", "eval-set.json")


def _eval_set_index(path: Path) -> bool:
    """Is ``path`` the index inspect_ai's ``eval_set`` keeps of its logs (not a trajectory)?"""
    return path.name in _EVAL_SET_FILES and (path.parent / ".eval-set-id").is_file()


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def _kind_of_file(path: Path) -> str:
    """``"file"``, ``"dir"`` or ``"other"`` (a FIFO, a socket, a device: never opened)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "other"
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def _repeat_of(path: Path) -> int | None:
    stem = path.stem
    return int(stem) if _DIGITS.fullmatch(stem) and int(stem) <= _REPEAT_MAX else None


def _repeat_order(path: Path) -> tuple:
    r = _repeat_of(path)
    return (0, r, "") if r is not None else (1, 0, path.name)


def _folder(root: Path, notes: _Notes, forced: TrajectoryFormat | None,
            kinds: Mapping[str, str] | None) -> Iterator[Trajectory]:
    def skip(path: Path) -> None:
        notes.other.append(f"{path}: skipped (not a regular file or folder: a FIFO, socket or device is never read)")

    for entry in _visible(root):
        what = _kind_of_file(entry)
        if what == "other":
            skip(entry)
            continue
        if what == "file":
            if _eval_set_index(entry):  # inspect_ai's own index of the logs beside it: nothing to read
                continue
            if inspect_log.is_inspect_log(entry):
                yield from _inspect_file(entry, notes)
            elif entry.suffix.lower() in (".jsonl", ".json"):
                yield from _records(entry, notes, kinds=kinds)
            continue
        system = _name(entry.name, "system", str(entry))
        # tasks in name order (a task's file and its repeats folder side by side), repeats in number order
        items = [(p, _kind_of_file(p)) for p in _visible(entry)]
        for item, what in sorted(items, key=lambda pk: (pk[0].stem if pk[1] == "file" else pk[0].name, pk[1] == "dir")):
            if what == "other":
                skip(item)
            elif what == "dir":
                for f in sorted(_visible(item), key=_repeat_order):
                    kind_f = _kind_of_file(f)
                    if kind_f == "other":
                        skip(f)
                        continue
                    repeat = _repeat_of(f)
                    if kind_f != "file" or f.suffix.lower() not in TRAJECTORY_SUFFIXES or repeat is None:
                        raise SgrKitError(f"{f}: expected <system>/<task_id>/<repeat>.jsonl (or .json, .txt, .eval) "
                                          f"with a repeat of digits 0-9 (at most {_REPEAT_MAX})")  # fmt: skip
                    yield from _one_file(f, (system, item.name, repeat), notes, forced, kinds)
            elif item.suffix.lower() in TRAJECTORY_SUFFIXES:
                yield from _one_file(item, (system, item.stem, 0), notes, forced, kinds)
            else:
                raise SgrKitError(f"{item}: expected a trajectory file <system>/<task_id>.jsonl (or .json, .txt, "
                                  f".eval); found suffix '{item.suffix}'")  # fmt: skip


def _sources(source: Any) -> list[Path]:
    if isinstance(source, (str, os.PathLike)):
        return [Path(source)]
    if isinstance(source, Iterable):
        return [Path(s) for s in source]
    raise SgrKitError(f"trajectories: expected a path or a list of paths; found {type(source).__name__}")


def iter_trajectories(source: Any, *, format: str | None = None, tool_kinds: Any = None,
                      notes: Callable[[str], None] | None = None) -> Iterator[Trajectory]:
    """Yield the trajectories of a JSONL or JSON file or a folder (or several), one at a time.

    Parameters
    ----------
    source : path or list of paths
        See the module docstring for the accepted layouts.
    format : str, optional
        Read every file of a folder as this format (a name of :data:`FORMATS`, e.g.
        ``"claude-code"``) instead of telling it by its content.
    tool_kinds : mapping, path or None
        The kind (``search``, ``fetch``, ``pdf``, ``tool``) of tools by name, taken before the
        known tools and the name rule (:func:`~sgr_kit.trajectories.steps.read_tool_kinds`).
    notes : callable, optional
        Called with each note (what a source was read as, what was skipped); by default notes
        are :class:`TrajectoryNote` warnings.

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
    forced = _format(format)
    kinds = read_tool_kinds(tool_kinds) if tool_kinds is not None else None
    sink = _Notes(notes)
    seen: dict[tuple[str, str, int], str] = {}
    for path in _sources(source):
        what = _kind_of_file(path)
        if what == "dir":
            found = _folder(path, sink, forced, kinds)
        elif what == "file" and inspect_log.is_inspect_log(path):
            found = _inspect_file(path, sink)
        elif what == "file":
            if path.suffix.lower() not in (".jsonl", ".json"):
                raise SgrKitError(f"trajectories {path}: expected a .jsonl or .json file of trajectory records or a "
                                  f"folder; found '{path.suffix}'")  # fmt: skip
            found = _records(path, sink, kinds=kinds)
        elif path.exists():
            raise SgrKitError(f"trajectories {path}: not a regular file or folder (a FIFO, socket or device)")
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
            yield _clean(trajectory)
        sink.flush(path)


_TEXT_FIELDS = ("tool", "url", "host", "query", "text")


def _clean(tr: Trajectory) -> Trajectory:
    """``tr`` with lone surrogates (no Unicode character, unwritable to any file) replaced by U+FFFD."""
    bad = [i for i, s in enumerate(tr.steps) if any(_SURROGATE.search(getattr(s, f)) for f in _TEXT_FIELDS)]
    if not bad and not _SURROGATE.search(tr.system + tr.task_id):
        return tr
    steps = list(tr.steps)
    for i in bad:
        steps[i] = steps[i]._replace(**{f: _SURROGATE.sub("\ufffd", getattr(steps[i], f)) for f in _TEXT_FIELDS})
    return Trajectory(_SURROGATE.sub("\ufffd", tr.system), _SURROGATE.sub("\ufffd", tr.task_id), tr.repeat,
                      tuple(steps), tr.source, tr.format, tr.totals, tr.calls_totals)  # fmt: skip


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


def load_trajectories(path: Any, *, format: str | None = None, tool_kinds: Any = None) -> pd.DataFrame:
    """Read trajectories into the tidy steps table: one row per step.

    Parameters
    ----------
    path : path or list of paths
        A JSONL file of trajectory records, or a ``<system>/<task_id>[/<repeat>].jsonl`` folder
        of documented steps, Claude Code ``stream-json`` transcripts or OpenAI-style chat
        messages (see :mod:`sgr_kit.trajectories`).
    format : str, optional
        Read every file of a folder as this format (a name of :data:`FORMATS`), not by content.
    tool_kinds : mapping, path or None
        Tool names and their kinds, taken first (a CSV or YAML file of ``tool,kind``, or a dict).

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
    return steps_frame(iter_trajectories(path, format=format, tool_kinds=tool_kinds))


def trajectory_answers(source: Any) -> Iterator[tuple[str, str, int, str | None, str]]:
    """``(system, task_id, repeat, answer or None, source)`` of every trajectory, streamed (for ``load_runs``)."""
    for tr in iter_trajectories(source):
        yield tr.system, tr.task_id, tr.repeat, tr.answer, tr.source


def is_trajectory_source(path: Any) -> bool:
    """True when ``path`` holds trajectories rather than answers (looked up without reading it whole).

    A folder is one when a system folder in it holds ``.jsonl`` or ``.eval`` files, or ``.json``
    or ``.txt`` files whose first JSON object is a trajectory's (answers are ``.md``/``.txt``/``.json``
    texts), or when it holds inspect_ai eval logs itself (an eval set's log folder); a JSONL file
    when its first record has ``steps`` or ``messages``.
    """
    path = Path(path)
    try:
        if _kind_of_file(path) == "dir":
            for entry in _visible(path):
                what = _kind_of_file(entry)
                if what == "dir":
                    for item in _visible(entry):
                        kind = _kind_of_file(item)
                        if kind == "file" and _is_trajectory_file(item):
                            return True
                        if kind == "dir" and any(_kind_of_file(f) == "file" and _is_trajectory_file(f)
                                                 for f in _visible(item)):  # fmt: skip
                            return True
                        if kind == "file":
                            break  # one answer file tells a folder of answers
                elif what == "file" and entry.suffix.lower() == ".jsonl" and _first_record_is_trajectory(entry):
                    return True
                elif what == "file" and entry.suffix.lower() == ".eval" and inspect_log.is_inspect_log(entry):
                    return True
            return False
        if _kind_of_file(path) == "file" and path.suffix.lower() == ".jsonl":
            return _first_record_is_trajectory(path)
    except (OSError, SgrKitError, ValueError, RecursionError):
        return False
    return False


def _is_trajectory_file(path: Path) -> bool:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".eval"):
        return True
    if suffix not in (".json", ".txt"):
        return False
    for fmt in FORMATS:
        if fmt.sniff_path is not None and fmt.sniff_path(path):
            return True
    if suffix == ".json":
        with open(path, "rb") as handle:
            text = handle.read(2**20).decode("utf-8-sig", errors="replace").lstrip()
        if text.startswith("["):
            text = text[1:].lstrip()
        try:
            obj, _ = json.JSONDecoder().raw_decode(text)
        except (ValueError, RecursionError):
            return False
        return _surely_trajectory(obj)
    for n, line in _lines(path):
        if n > 20:
            return False
        head = line.lstrip()
        if head.startswith("["):
            head = head[1:].lstrip()
        if not head.startswith("{"):
            continue
        try:
            obj, _ = json.JSONDecoder().raw_decode(head)
        except (ValueError, RecursionError):
            return False
        return _surely_trajectory(obj)
    return False


_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


def _surely_trajectory(obj: Any) -> bool:
    """Is ``obj`` a trajectory's first object beyond doubt (an answer's JSON table may have a ``kind`` column)?"""
    if not isinstance(obj, dict):
        return False
    fmt = _sniff(obj)
    if fmt is None:
        return False
    if fmt.name == "steps":
        return obj.get("kind") in STEP_KINDS
    if fmt.name == "openai-chat":
        return obj.get("role") in _ROLES
    return True


def _first_record_is_trajectory(path: Path) -> bool:
    for n, line in _lines(path):
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            return False
        return isinstance(obj, dict) and ("steps" in obj or "messages" in obj)
    return False
