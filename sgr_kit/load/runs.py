"""Load systems' answers: :func:`load_runs` (and :func:`read_runs`, which collects every problem).

Formats, detected from the path:

- ``*.jsonl``: one object per line with ``system``, ``task_id``, ``answer`` and optionally
  ``repeat`` (a whole number from 0 to 2147483647, a JSON integer or a string of ASCII digits;
  default 0) and ``language`` (``en``, the
  default, or ``zh``: the release translation the answer was given in, scored against the tasks
  of that language). ``answer`` is a string, or:

  - ``null``: no answer, the task stays *missing* for that system (a note per file says how
    many answers were null and where the first is);
  - a JSON list, object or number (``["a|b"]``, ``{"rows": ...}``, ``42``): scored as its JSON
    text exactly as written in the file (numbers keep their spelling, ``8.40`` stays ``8.40``),
    which the ``paper`` profile reads as a JSON table; a note per file says how many and where
    the first is. ``true`` and ``false`` are refused (file:line): they are no answer text;
- ``*.csv``: a header naming the same columns (``repeat`` and ``language`` optional, an empty cell is 0
  and ``en``); quoted
  answers may span lines, and locations give the line where the record starts. An empty
  ``answer`` cell is an empty answer (scored ``empty``), not a missing one;
- a folder: ``<system>/<task_id>.<md|txt|json>`` or ``<system>/<task_id>/<repeat>.<md|txt|json>``,
  each file's whole UTF-8 text being the answer (a ``.json`` file is an answer written as JSON).
  ``*.jsonl`` and ``*.csv`` files directly in the folder are read as above; other files there
  and hidden files are ignored. Entries that are neither files nor folders (FIFOs, sockets,
  devices, broken links) are skipped unread, with a note: opening a FIFO would wait forever. A
  name that is not UTF-8 is an error. Files are only read: no path is ever built from a task id.
- **trajectories** (:mod:`sgr_kit.trajectories`): a JSONL file of trajectory records or a
  ``<system>/<task_id>[/<repeat>].jsonl`` folder of trajectories; each trajectory's final
  answer is its answer (none: scored *missing*).

A lone surrogate escape in JSON (``"\\ud800"``: no Unicode character, so no output file could
hold it) is replaced by U+FFFD, with a note per file.

Every line is decoded by :func:`sgr_kit.errors.decode_json` (an integer of more digits than
Python reads and nesting deeper than :data:`~sgr_kit.errors.MAX_DEPTH` are errors) and every
field checked by :func:`~sgr_kit.errors.whole_number` / :func:`~sgr_kit.errors.text_value`.

Errors name the file and line: a missing column or key, an empty system name or one that is not
text (a list, an object, ``true``), a bad repeat,
an unknown task id (when ``tasks`` is given, with the closest known ids), a duplicate
``(system, task_id, repeat)`` (naming both locations), an undecodable file.
:func:`load_runs` raises the first; :func:`read_runs` (``sgr-kit validate --runs``) reports
them all as findings, with empty answers as warnings.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import SgrKitError, closest, decode_json, describe, text_value, valid_unicode, where, whole_number
from ..trajectories.layout import kind_of_file
from ..trajectories.read import is_trajectory_source, trajectory_answers
from ..types import Answer
from .release import LANGUAGES, Finding, as_source_list, jsonl_lines, read_text

__all__ = ["RunSet", "load_runs", "read_runs", "variant_hint", "ANSWER_SUFFIXES"]

#: File suffixes of answer files in a runs folder.
ANSWER_SUFFIXES = (".md", ".txt", ".json")
_COLUMNS = ("system", "task_id", "answer")


class RunSet(list):
    """A list of :class:`~sgr_kit.types.Answer`, plus what a plain list cannot say.

    Attributes
    ----------
    systems : tuple of str
        Every system named in the sources, in order of first appearance, including systems
        whose every answer was ``null``.
    nulls : tuple of (system, task_id, repeat, source)
        Entries given with a ``null`` answer (left out of the list: scored as missing).
    null_languages : tuple of str
        The language each of ``nulls`` names.
    notes : tuple of str
        What was done with answers that were not strings (one note per file and kind).
    """

    def __init__(self, answers: Iterable[Answer] = (), *, systems=(), nulls=(), notes=(), null_languages=None) -> None:
        super().__init__(answers)
        self.systems: tuple[str, ...] = tuple(systems)
        self.nulls: tuple[tuple[str, str, int, str], ...] = tuple(tuple(n[:4]) for n in nulls)
        self.null_languages: tuple[str, ...] = (
            tuple(null_languages) if null_languages is not None else tuple(n[4] if len(n) > 4 else "en" for n in nulls)
        )
        self.notes: tuple[str, ...] = tuple(notes)

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the answers (and null entries) name, English first."""
        named = {a.language for a in self} | set(self.null_languages)
        return tuple(lang for lang in LANGUAGES if lang in named)

    def for_language(self, language: str) -> "RunSet":
        """The answers (and null entries) of one language, with the systems that gave any in it.

        A system that never answered in ``language`` is left out, so that scoring gives it no
        row there (not a row of ``missing`` answers for every task).
        """
        answers = [a for a in self if a.language == language]
        nulls = [(n, lang) for n, lang in zip(self.nulls, self.null_languages) if lang == language]
        named = {a.system for a in answers} | {n[0] for n, _ in nulls}
        return RunSet(answers, systems=[s for s in self.systems if s in named], notes=self.notes,
                      nulls=[n for n, _ in nulls], null_languages=[lang for _, lang in nulls])  # fmt: skip


def _language(value: Any, *, loc: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None  # the default language of the runs
    if not isinstance(value, str) or value.strip().lower() not in LANGUAGES:
        raise SgrKitError(f"{loc}: language should be one of {', '.join(LANGUAGES)}; found {describe(value)}")
    return value.strip().lower()


def variant_hint(task_id: str, known) -> str:
    """Why a goal (``-g``) or constraint id is unknown when its partner variant is loaded: that variant's file is not.

    Examples
    --------
    >>> variant_hint("nvd_001-g", {"nvd_001", "nvd_002"})
    '; its constraint variant nvd_001 is loaded but no goal-oriented (-g) task is: were the goal tasks (goal.jsonl) given?'
    >>> variant_hint("nvd_001", {"nvd_001-g"})
    '; its goal variant nvd_001-g is loaded but no constraint-guided task is: were the constraint tasks (constraint.jsonl) given?'
    """
    goal = task_id.endswith("-g")
    partner = task_id[:-2] if goal else f"{task_id}-g"
    if partner not in known:
        return ""
    if goal and not any(str(k).endswith("-g") for k in known):
        return (f"; its constraint variant {partner} is loaded but no goal-oriented (-g) task is: were the goal "
                f"tasks (goal.jsonl) given?")
    if not goal and all(str(k).endswith("-g") for k in known):
        return (f"; its goal variant {partner} is loaded but no constraint-guided task is: were the constraint "
                f"tasks (constraint.jsonl) given?")
    return f"; its other variant {partner} is loaded"


def _repeat(value: Any, *, loc: str) -> int:
    return whole_number(value, loc, "repeat", default=0)


_DECODER = json.JSONDecoder()
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACE = re.compile(r"[ \t\n\r]*")


def raw_member(line: str, key: str) -> str | None:
    """The JSON text of member ``key`` of the object on ``line``, exactly as written (the last one wins).

    Examples
    --------
    >>> raw_member('{"answer": [ {"v": 8.40} ], "system": "s"}', "answer")
    '[ {"v": 8.40} ]'
    """
    i = _SPACE.match(line, 0).end()
    if line[i : i + 1] != "{":
        return None
    i = _SPACE.match(line, i + 1).end()
    found = None
    while line[i : i + 1] == '"':
        name, i = json.decoder.scanstring(line, i + 1)
        i = _SPACE.match(line, i).end()
        if line[i : i + 1] != ":":
            return None
        start = _SPACE.match(line, i + 1).end()
        _, end = _DECODER.raw_decode(line, start)
        if name == key:
            found = line[start:end]
        i = _SPACE.match(line, end).end()
        if line[i : i + 1] != ",":
            break
        i = _SPACE.match(line, i + 1).end()
    return found


class _Collector:
    """Gathers answers; raises at the first problem, or (``collect``) records every one as a finding."""

    def __init__(self, tasks: Any, *, collect: bool = False, language: str = "en") -> None:
        if language not in LANGUAGES:
            raise SgrKitError(f"language must be one of {', '.join(LANGUAGES)}; found {language!r}")
        self.language = language
        self.known = None if tasks is None else {str(t) for t in tasks}
        self.answers: list[Answer] = []
        self.nulls: list[tuple[str, str, int, str]] = []
        self.systems: dict[str, None] = {}
        self.seen: dict[tuple[str, str, int], str] = {}
        self.findings: list[Finding] | None = [] if collect else None
        self.converted: dict[str, list[str]] = {}  # file -> locations of non-string answers
        self.null_at: dict[str, list[str]] = {}  # file -> locations of null answers
        self.fixed_at: dict[str, list[str]] = {}  # file -> locations of lone surrogates replaced
        self.skipped: list[str] = []  # entries of a runs folder that are neither files nor folders

    @contextmanager
    def guard(self, kind: str = "read") -> Iterator[None]:
        """In collect mode, an error inside the block becomes a finding and reading goes on."""
        if self.findings is None:
            yield
            return
        try:
            yield
        except SgrKitError as exc:
            self.findings.append(Finding("error", "", kind, str(exc)))

    def text(self, value: Any, *, raw: str | None, path: Path, loc: str) -> str | None:
        """An answer value as text (see the module docstring); None for null."""
        if isinstance(value, str):
            return value
        if value is None:
            self.null_at.setdefault(str(path), []).append(loc)
            return None
        if isinstance(value, (dict, list, int, float)) and not isinstance(value, bool) and raw is not None:
            self.converted.setdefault(str(path), []).append(loc)
            return raw
        raise SgrKitError(
            f"{loc}: answer is {json.dumps(value)}; expected a string, null (no answer), or a JSON list, "
            f"object or number (scored as its JSON text)"
        )

    def add(self, system: Any, task_id: Any, repeat: int, text: str | None, loc: str, language: str | None = None) -> None:
        language = language or self.language
        system = text_value(system, loc, "system")
        if not system:
            raise SgrKitError(f"{loc}: system name is empty; every answer needs a system")
        task_id = text_value(task_id, loc, "task_id")
        if not task_id:
            raise SgrKitError(f"{loc}: task_id is empty")
        if self.known is not None and task_id not in self.known:
            close = closest(task_id, self.known)
            hint = variant_hint(task_id, self.known) or (f"; closest known ids: {', '.join(close)}" if close else "")
            message = f"{loc}: unknown task id {task_id!r} (not among the {len(self.known)} loaded tasks){hint}"
            if self.findings is None:
                raise SgrKitError(message)
            self.findings.append(Finding("error", task_id, "unknown_task", message))
            return
        key = (system, task_id, repeat, language)
        if key in self.seen:
            message = (
                f"{loc}: duplicate answer for system {system!r}, task {task_id}, repeat {repeat}"
                f"{'' if language == 'en' else f', language {language}'} (first at {self.seen[key]})"
            )
            if self.findings is None:
                raise SgrKitError(message)
            self.findings.append(Finding("error", task_id, "duplicate", message))
            return
        self.seen[key] = loc
        self.systems.setdefault(system)
        if text is None:
            self.nulls.append((system, task_id, repeat, loc, language))
            return
        if self.findings is not None and not text.strip():
            self.findings.append(Finding(
                "warning", task_id, "empty_answer",
                f"{loc}: the answer of system {system!r} to task {task_id} (repeat {repeat}) is empty; "
                f"it will be scored 'empty' (zero on every metric)",
            ))
        self.answers.append(Answer(system=system, task_id=task_id, repeat=repeat, text=text, source=loc,
                                   language=language))

    def notes(self) -> list[str]:
        """One note per file for null answers and for answers that were not strings."""
        out = []
        if self.skipped:
            out.append(
                f"{len(self.skipped)} entr{'ies' if len(self.skipped) > 1 else 'y'} of the runs folder "
                f"{'are' if len(self.skipped) > 1 else 'is'} neither a file nor a folder (a FIFO, a socket, a device "
                f"or a broken link) and {'were' if len(self.skipped) > 1 else 'was'} skipped unread: "
                f"{', '.join(self.skipped[:3])}{' ...' if len(self.skipped) > 3 else ''}"
            )
        for path, locs in self.null_at.items():
            out.append(
                f"{path}: {len(locs)} answer{'s are' if len(locs) > 1 else ' is'} null (first at {locs[0]}); "
                f"scored as missing"
            )
        for path, locs in self.fixed_at.items():
            out.append(
                f"{path}: {len(locs)} line{'s hold' if len(locs) > 1 else ' holds'} lone surrogate escapes "
                f"(\\ud800-\\udfff: no Unicode character; first at {locs[0]}); each was replaced by U+FFFD"
            )
        for path, locs in self.converted.items():
            out.append(
                f"{path}: {len(locs)} answer{'s are' if len(locs) > 1 else ' is'} a JSON list, object or number, "
                f"not a string (first at {locs[0]}); scored as the JSON text written in the file"
            )
        return out


def _jsonl(path: Path, out: _Collector) -> None:
    for n, line in jsonl_lines(read_text(path)):
        loc = where(path, n)
        with out.guard():
            entry, replaced = decode_json(line, path, n)
            if replaced:
                out.fixed_at.setdefault(str(path), []).append(loc)
            if not isinstance(entry, dict):
                raise SgrKitError(
                    f"{loc}: expected an object with {', '.join(_COLUMNS)}; found {type(entry).__name__}"
                )
            missing = [k for k in _COLUMNS if k not in entry]
            if missing:
                raise SgrKitError(
                    f"{loc}: key(s) {', '.join(missing)} missing; expected {', '.join(_COLUMNS)} (and repeat)"
                )
            value = entry["answer"]
            raw = None if value is None or isinstance(value, str) else valid_unicode(raw_member(line, "answer"))[0]
            out.add(entry["system"], entry["task_id"], _repeat(entry.get("repeat"), loc=loc),
                    out.text(value, raw=raw, path=path, loc=loc), loc,
                    _language(entry.get("language"), loc=loc))  # fmt: skip


def _csv(path: Path, out: _Collector) -> None:
    # strict: a quote left open is an error at the end of the data, not a field
    # that silently swallows every record after it
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""), strict=True)
    header = reader.fieldnames or []
    missing = [c for c in _COLUMNS if c not in header]
    if missing:
        raise SgrKitError(
            f"{where(path, 1)}: column(s) {', '.join(missing)} missing from the header; "
            f"expected {', '.join(_COLUMNS)} (and repeat); found {', '.join(header) or 'nothing'}"
        )
    start = reader.line_num + 1
    with out.guard():
        try:
            for row in reader:
                loc = where(path, start)
                with out.guard():
                    if None in row:
                        raise SgrKitError(f"{loc}: more cells than header columns ({len(header)})")
                    short = [c for c in header if row[c] is None]
                    if short:
                        raise SgrKitError(
                            f"{loc}: fewer cells than header columns ({len(header)}): no {', '.join(short)}; "
                            f"an empty answer is written as an empty quoted cell \"\""
                        )
                    out.add(row["system"], row["task_id"], _repeat(row.get("repeat"), loc=loc),
                            row["answer"] or "", loc, _language(row.get("language"), loc=loc))  # fmt: skip
                start = reader.line_num + 1
        except csv.Error as exc:
            raise SgrKitError(f"{where(path, start)}: not valid CSV ({exc})") from None


def _name(path: Path) -> str:
    """A file or folder name used as a system, task id or repeat; a name that is not UTF-8 is an error."""
    if _SURROGATE.search(path.name):
        shown = os.fsencode(path.name).decode("utf-8", "replace")
        raise SgrKitError(f"{path.parent / shown}: the name is not UTF-8 text; expected a system, task id or "
                          f"repeat written in UTF-8 (rename it)")  # fmt: skip
    return path.name


def _visible(folder: Path, out: _Collector) -> list[tuple[Path, str]]:
    """The entries of ``folder`` that are read, with their kind; hidden ones are left out, non-regular ones noted."""
    kept = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        kind = kind_of_file(entry)
        if kind == "other":
            out.skipped.append(str(entry))
            continue
        kept.append((entry, kind))
    return kept


def _folder(root: Path, out: _Collector) -> None:
    for entry, kind in _visible(root, out):
        if kind == "file":
            if entry.suffix.lower() in _TABLES:
                _TABLES[entry.suffix.lower()](entry, out)
            continue
        with out.guard():
            system = _name(entry)
            for item, item_kind in _visible(entry, out):
                with out.guard():
                    if item_kind == "dir":
                        task_id = _name(item)
                        for f, f_kind in _visible(item, out):
                            with out.guard():
                                if f_kind != "file" or f.suffix.lower() not in ANSWER_SUFFIXES:
                                    raise SgrKitError(
                                        f"{f}: expected <system>/<task_id>/<repeat>.<md|txt|json> with a numeric repeat"
                                    )
                                repeat = whole_number(_name(f).removesuffix(f.suffix), str(f), "the repeat (file name)")
                                out.add(system, task_id, repeat, read_text(f), str(f))
                        continue
                    if item.suffix.lower() not in ANSWER_SUFFIXES:
                        raise SgrKitError(
                            f"{item}: expected an answer file <system>/<task_id>.<md|txt|json>; "
                            f"found suffix '{item.suffix}'"
                        )
                    out.add(system, _name(item).removesuffix(item.suffix), 0, read_text(item), str(item))


_TABLES = {".jsonl": _jsonl, ".csv": _csv}


def _trajectories(path: Path, out: _Collector) -> None:
    # a trajectories file or folder stands in for answers: each trajectory's final answer
    for system, task_id, repeat, text, loc in trajectory_answers(path):
        out.add(system, task_id, repeat, out.text(text, raw=None, path=path, loc=loc), loc)


def _is_trajectories(path: Path) -> bool:
    # The sniff reads the first record of a JSONL file; a record it cannot decode (an integer of
    # more digits than Python reads, nesting deeper than the recursion limit) is left to the runs
    # reader, whose error names the file and line.
    try:
        return is_trajectory_source(path)
    except (ValueError, RecursionError):
        return False


def _read(source: Any, out: _Collector) -> None:
    for item in as_source_list(source):
        path = Path(item)
        with out.guard():
            kind = kind_of_file(path)
            if kind == "other" and path.exists():
                raise SgrKitError(f"runs source {path}: neither a file nor a folder (a FIFO, a socket or a device); "
                                  f"expected a .jsonl or .csv file or a folder")  # fmt: skip
            if _is_trajectories(path):
                _trajectories(path, out)
            elif kind == "dir":
                _folder(path, out)
            elif kind == "file":
                reader = _TABLES.get(path.suffix.lower())
                if reader is None:
                    raise SgrKitError(
                        f"runs source {path}: expected a .jsonl or .csv file or a folder; found '{path.suffix}'"
                    )
                reader(path, out)
            else:
                raise SgrKitError(f"runs source {path}: no such file or folder")
    if not out.answers and not out.nulls and not (out.findings and any(f.severity == "error" for f in out.findings)):
        with out.guard():
            raise SgrKitError(
                f"no answers in {', '.join(map(str, as_source_list(source)))}; expected JSONL/CSV records with "
                f"{', '.join(_COLUMNS)} or a <system>/<task_id>.<ext> folder"
            )


def load_runs(source: Any, *, tasks: Any = None, language: str = "en") -> RunSet:
    """Load answers from JSONL/CSV files or a ``<system>/<task_id>.<ext>`` folder.

    Parameters
    ----------
    source : path or list of paths
        Several sources merge; a ``(system, task_id, repeat)`` given twice is an error.
    tasks : TaskSet, mapping or iterable of task ids, optional
        When given, every task id must be among them.
    language : {"en", "zh"}, default "en"
        The language of answers that do not name one.

    Returns
    -------
    RunSet
        A list of :class:`~sgr_kit.types.Answer` (``source`` = ``file:line`` or the file), with
        ``.systems``, ``.nulls`` and ``.notes`` (null answers and answers that were not strings,
        one note per file). A task without an answer is not in the list: scoring reports it as
        ``missing``.

    Raises
    ------
    SgrKitError
        At the first problem, naming the file and line (see the module docstring).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = path.write_text('{"system": "s1", "task_id": "t1", "answer": "a|1"}\\n'
    ...                     '{"system": "s1", "task_id": "t2", "answer": null, "repeat": "1"}\\n')
    >>> runs = load_runs(path, tasks=["t1", "t2"])
    >>> [(a.system, a.task_id, a.repeat, a.text) for a in runs], runs.systems
    ([('s1', 't1', 0, 'a|1')], ('s1',))
    >>> runs.notes[0].endswith("1 answer is null (first at " + str(path) + ":2); scored as missing")
    True
    """
    out = _Collector(tasks, language=language)
    _read(source, out)
    return RunSet(out.answers, systems=out.systems, nulls=out.nulls, notes=out.notes())


def read_runs(source: Any, *, tasks: Any = None, language: str = "en") -> tuple[RunSet, list[Finding]]:
    """Read answers like :func:`load_runs`, but report every problem instead of stopping at the first.

    Parameters
    ----------
    source : path or list of paths
    tasks : TaskSet, mapping or iterable of task ids, optional
        Unknown task ids are reported with the closest known ids.

    Returns
    -------
    runs : RunSet
        The answers that could be read (a duplicate keeps its first occurrence).
    findings : list of Finding
        Errors (``read``, ``unknown_task``, ``duplicate``), warnings (``empty_answer``) and notes
        (``answer_type``: null answers and answers that were not strings), each naming file and line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = path.write_text('{"system": "s", "task_id": "t_1", "answer": ""}\\n'
    ...                     '{"system": "s", "task_id": "t_01", "answer": "x"}\\n')
    >>> runs, findings = read_runs(path, tasks=["t_001"])
    >>> [(f.severity, f.kind) for f in findings]
    [('error', 'unknown_task'), ('error', 'unknown_task')]
    """
    out = _Collector(tasks, collect=True, language=language)
    _read(source, out)
    notes = out.notes()
    findings = list(out.findings or []) + [Finding("info", "", "answer_type", n) for n in notes]
    return RunSet(out.answers, systems=out.systems, nulls=out.nulls, notes=notes), findings
