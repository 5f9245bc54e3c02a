"""Generic parsing of trajectory files: their lines, their JSON, and trajectory records.

- lines (:func:`lines`): read one at a time as bytes, at most :data:`MAX_LINE_BYTES` each,
  decoded as UTF-8; a whole JSON document (:func:`document`) within the same limit;
- JSON (:func:`parse`, :func:`json_object`): errors name the file and line; lone surrogate
  escapes are replaced by U+FFFD, with a note;
- **records** (:func:`record_trajectories`): ``{"system", "task_id", "repeat" (optional, default
  0), "steps": [step, ...] or "messages": [...], "answer" (optional), "totals" (optional)}``,
  one per line of a JSONL file, or a JSON document holding one or a list of them. A record in a
  folder's file takes the file's place, and what it says of its system, task and repeat must
  agree with it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import SgrKitError, where, describe
from .notes import NoteSink, ReaderNote
from .steps import Step, Trajectory, native_step, record_totals, using_tool_kinds

__all__ = [
    "MAX_LINE_BYTES", "REPEAT_MAX", "lines", "raw_lines", "parse", "json_object", "document", "is_document",
    "check_name", "check_repeat", "record_trajectories", "calls_totals", "NativeReader",
]  # fmt: skip

#: The longest line (and JSON document) a trajectory file may hold, in bytes.
MAX_LINE_BYTES = 64 * 2**20
#: The largest repeat number.
REPEAT_MAX = 2**63 - 1
_DIGITS = re.compile(r"[0-9]+")
SURROGATE = re.compile("[\ud800-\udfff]")
#: How notes name lone surrogates replaced.
SURROGATE_NOTE = ("lines hold lone surrogate escapes (\\ud800-\\udfff: no Unicode character); each was replaced "
                  "by U+FFFD")  # fmt: skip


def raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
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


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a UTF-8 file with their 1-based numbers, read one at a time.

    Lines end at ``\\n`` only (a ``\\r`` before it is dropped), as in every JSONL reader of sgr-kit.
    """
    for n, raw in raw_lines(path):
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
        return SURROGATE.subn("\ufffd", value)
    if isinstance(value, list):
        pairs = [_valid_unicode(v) for v in value]
        total = sum(n for _, n in pairs)
        return ([v for v, _ in pairs], total) if total else (value, 0)
    if isinstance(value, dict):
        pairs = {k: _valid_unicode(v) for k, v in value.items()}
        total = sum(n for _, n in pairs.values())
        return ({SURROGATE.sub("\ufffd", k): v for k, (v, _) in pairs.items()}, total) if total or any(
            SURROGATE.search(k) for k in value) else (value, 0)  # fmt: skip
    return value, 0


def parse(text: str, loc: str, notes: NoteSink | None = None, *, file: str | None = None) -> Any:
    """One JSON text read, its errors naming ``loc``; lone surrogates replaced (with a note)."""
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
            notes.add(ReaderNote(SURROGATE_NOTE, loc, "a line holds lone surrogate escapes (\\ud800-\\udfff: no "
                                 "Unicode character); each was replaced by U+FFFD"), file=file or loc)  # fmt: skip
    return value


def json_object(line: str, loc: str, notes: NoteSink | None = None, *, file: str | None = None) -> dict:
    """One JSON object read from ``line`` (an error naming ``loc`` for anything else)."""
    value = parse(line, loc, notes, file=file)
    if not isinstance(value, dict):
        raise SgrKitError(f"{loc}: expected a JSON object; found {type(value).__name__}")
    return value


def is_document(line: str) -> bool:
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


def document(path: Path, notes: NoteSink | None) -> Any:
    """A whole JSON document, at most :data:`MAX_LINE_BYTES`."""
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
    return parse(text, str(path), notes, file=str(path))


def check_repeat(value: Any, loc: str) -> int:
    """A repeat: a whole number 0 to :data:`REPEAT_MAX` (digits in a text too); None is 0."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= REPEAT_MAX:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()) and int(value) <= REPEAT_MAX:
        return int(value)
    raise SgrKitError(f"{loc}: repeat should be an integer >= 0 (at most {REPEAT_MAX}); found {describe(value)}")


def check_name(value: Any, what: str, loc: str) -> str:
    """A system or task name: non-empty text (or an integer), lone surrogates replaced."""
    text = str(value).strip() if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)
                                                          and abs(value) < 10**100) else ""  # fmt: skip
    if not text:
        raise SgrKitError(f"{loc}: {what} is missing or empty (or not text); every trajectory needs its {what}")
    return SURROGATE.sub("\ufffd", text)


class NativeReader:
    """Documented steps, one per line (:func:`~sgr_kit.trajectories.steps.native_step`)."""

    totals = None

    def __init__(self) -> None:
        self.steps: list[Step] = []

    def line(self, obj: dict, *, loc: str) -> None:
        """Read one step; ``loc`` names the file and line."""
        self.steps.append(native_step(obj, loc=f"{loc}: step {len(self.steps)}"))

    def finish(self) -> list[Step]:
        """The steps read."""
        return self.steps

    def calls_usage(self) -> list[tuple]:
        """The usage of every step that reported some."""
        fields = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
        return [tuple(getattr(s, f) for f in fields) for s in self.steps
                if any(getattr(s, f) is not None for f in fields)]  # fmt: skip


def calls_totals(reader: Any) -> dict | None:
    """A reader's per-call usage summed, field by field, when every call's value is known (else None for that field)."""
    calls = reader.calls_usage() if hasattr(reader, "calls_usage") else None
    if calls is None:
        return None
    keys = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens")
    if not calls:
        return dict.fromkeys(keys)
    return {k: (None if any(c[i] is None for c in calls) else sum(c[i] for c in calls)) for i, k in enumerate(keys)}


def _one_answer(steps: list[Step], answer: str) -> list[Step]:
    """``steps`` with ``answer`` as the last step: a last message of the same text becomes it."""
    if steps and steps[-1].kind == "message" and "".join(steps[-1].text.split()) == "".join(answer.split()):
        steps[-1] = steps[-1]._replace(kind="answer", text=answer)
    else:
        steps.append(Step(kind="answer", text=answer))
    return steps


def _record(record: dict, loc: str, place: tuple[str, str, int] | None,
            kinds: Mapping[str, str] | None = None) -> Trajectory:
    if place is None:
        system = check_name(record.get("system"), "system", loc)
        task_id = check_name(record.get("task_id"), "task_id", loc)
        repeat = check_repeat(record.get("repeat"), loc)
    else:
        system, task_id, repeat = place
        for key, value in zip(("system", "task_id", "repeat"), place):
            given = record.get(key)
            if given is not None and str(given).strip()[:200] != str(value):
                raise SgrKitError(f"{loc}: {key} is {describe(given)} but the file's place in the folder says {value!r}")
    with using_tool_kinds(kinds):
        steps, fmt, calls = _record_steps(record, loc)
    totals = record_totals(record.get("totals"), loc=loc)
    return Trajectory(system, task_id, repeat, tuple(steps), loc, fmt, totals, calls)


def _record_steps(record: dict, loc: str) -> tuple[list[Step], str, dict | None]:
    """The steps of one record (documented steps or chat messages), with its answer, and the format."""
    from .openai_api import ChatReader  # (the chat reader is an agent format's; records only borrow it)

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
    return steps, fmt, calls_totals(reader)


def record_trajectories(path: Path, notes: NoteSink, *, place: tuple[str, str, int] | None = None,
                        kinds: Mapping[str, str] | None = None) -> Iterator[Trajectory]:
    """The trajectories of a file of records: JSON lines, or one JSON document (a record or a list of them).

    ``place`` (a folder's ``(system, task_id, repeat)``) is taken by every record; without it
    each record names its own.
    """
    found = lines(path)
    first = next(found, None)
    if first is None:
        return
    n, line = first
    if is_document(line):
        found.close()
        doc = document(path, notes)
        items = doc if isinstance(doc, list) else [doc]
        for i, item in enumerate(items):
            loc = f"{path}: record {i}" if isinstance(doc, list) else str(path)
            if not isinstance(item, dict):
                raise SgrKitError(f"{loc}: expected a trajectory record (an object with steps or messages); "
                                  f"found {type(item).__name__}")  # fmt: skip
            yield _record(item, loc, place, kinds)
        return
    yield _record(json_object(line, where(path, n), notes, file=str(path)), where(path, n), place, kinds)
    for n, line in found:
        loc = where(path, n)
        yield _record(json_object(line, loc, notes, file=str(path)), loc, place, kinds)
