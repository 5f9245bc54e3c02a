"""Load systems' answers: :func:`load_runs`.

Formats, detected from the path:

- ``*.jsonl``: one object per line with ``system``, ``task_id``, ``answer`` and optionally
  ``repeat`` (an integer >= 0 or a string of digits; default 0). ``answer`` is a string, ``null``
  (no answer: the task stays *missing* for that system) or a JSON object/list, which is written
  back to JSON text;
- ``*.csv``: a header naming the same columns (``repeat`` optional, an empty cell is 0); quoted
  answers may span lines, and locations give the line where the record starts. An empty
  ``answer`` cell is an empty answer (scored ``empty``), not a missing one;
- a folder: ``<system>/<task_id>.<md|txt|json>`` or ``<system>/<task_id>/<repeat>.<md|txt|json>``,
  each file's whole UTF-8 text being the answer (a ``.json`` file is an answer written as JSON).
  ``*.jsonl`` and ``*.csv`` files directly in the folder are read as above; other files there
  and hidden files are ignored.

Errors name the file and line: a missing column or key, an empty system name, a bad repeat,
an unknown task id (when ``tasks`` is given, with the closest known ids), a duplicate
``(system, task_id, repeat)`` (naming both locations), an undecodable file.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
from pathlib import Path
from typing import Any, Iterable

from ..errors import SgrKitError, where
from ..types import Answer
from .release import as_source_list, json_error, jsonl_lines, read_text

__all__ = ["RunSet", "load_runs", "ANSWER_SUFFIXES"]

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
    """

    def __init__(self, answers: Iterable[Answer] = (), *, systems=(), nulls=()) -> None:
        super().__init__(answers)
        self.systems: tuple[str, ...] = tuple(systems)
        self.nulls: tuple[tuple[str, str, int, str], ...] = tuple(nulls)


def _repeat(value: Any, *, loc: str) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise SgrKitError(f"{loc}: repeat should be an integer >= 0; found {value!r}")


def _text(value: Any, *, loc: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    raise SgrKitError(f"{loc}: answer should be a string, null, or a JSON object or list; found {value!r}")


class _Collector:
    def __init__(self, tasks: Any) -> None:
        self.known = None if tasks is None else {str(t) for t in tasks}
        self.answers: list[Answer] = []
        self.nulls: list[tuple[str, str, int, str]] = []
        self.systems: dict[str, None] = {}
        self.seen: dict[tuple[str, str, int], str] = {}

    def add(self, system: Any, task_id: Any, repeat: int, text: str | None, loc: str) -> None:
        system = str(system).strip() if isinstance(system, (str, int)) else ""
        if not system:
            raise SgrKitError(f"{loc}: system name is empty; every answer needs a system")
        task_id = str(task_id).strip() if isinstance(task_id, (str, int)) else ""
        if not task_id:
            raise SgrKitError(f"{loc}: task_id is empty")
        if self.known is not None and task_id not in self.known:
            close = difflib.get_close_matches(task_id, sorted(self.known), n=3, cutoff=0.6)
            hint = f"; closest known ids: {', '.join(close)}" if close else ""
            raise SgrKitError(
                f"{loc}: unknown task id {task_id!r} (not among the {len(self.known)} loaded tasks){hint}"
            )
        key = (system, task_id, repeat)
        if key in self.seen:
            raise SgrKitError(
                f"{loc}: duplicate answer for system {system!r}, task {task_id}, repeat {repeat} "
                f"(first at {self.seen[key]})"
            )
        self.seen[key] = loc
        self.systems.setdefault(system)
        if text is None:
            self.nulls.append((system, task_id, repeat, loc))
        else:
            self.answers.append(Answer(system=system, task_id=task_id, repeat=repeat, text=text, source=loc))


def _jsonl(path: Path, out: _Collector) -> None:
    for n, line in jsonl_lines(read_text(path)):
        loc = where(path, n)
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SgrKitError(f"{loc}: not valid JSON ({json_error(exc)})") from None
        if not isinstance(entry, dict):
            raise SgrKitError(f"{loc}: expected an object with {', '.join(_COLUMNS)}; found {type(entry).__name__}")
        missing = [k for k in _COLUMNS if k not in entry]
        if missing:
            raise SgrKitError(
                f"{loc}: key(s) {', '.join(missing)} missing; expected {', '.join(_COLUMNS)} (and repeat)"
            )
        out.add(entry["system"], entry["task_id"], _repeat(entry.get("repeat"), loc=loc),
                _text(entry["answer"], loc=loc), loc)


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
    try:
        for row in reader:
            loc = where(path, start)
            if None in row:
                raise SgrKitError(f"{loc}: more cells than header columns ({len(header)})")
            short = [c for c in header if row[c] is None]
            if short:
                raise SgrKitError(
                    f"{loc}: fewer cells than header columns ({len(header)}): no {', '.join(short)}; "
                    f"an empty answer is written as an empty quoted cell \"\""
                )
            out.add(row["system"], row["task_id"], _repeat(row.get("repeat"), loc=loc), row["answer"] or "", loc)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise SgrKitError(f"{where(path, start)}: not valid CSV ({exc})") from None


def _folder(root: Path, out: _Collector) -> None:
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file():
            if entry.suffix.lower() in _TABLES:
                _TABLES[entry.suffix.lower()](entry, out)
            continue
        system = entry.name
        for item in sorted(entry.iterdir()):
            if item.name.startswith("."):
                continue
            if item.is_dir():
                for f in sorted(item.iterdir()):
                    if f.name.startswith("."):
                        continue
                    if not f.is_file() or f.suffix.lower() not in ANSWER_SUFFIXES or not f.stem.isdigit():
                        raise SgrKitError(
                            f"{f}: expected <system>/<task_id>/<repeat>.<md|txt|json> with a numeric repeat"
                        )
                    out.add(system, item.name, int(f.stem), read_text(f), str(f))
            elif item.suffix.lower() in ANSWER_SUFFIXES:
                out.add(system, item.stem, 0, read_text(item), str(item))
            else:
                raise SgrKitError(
                    f"{item}: expected an answer file <system>/<task_id>.<md|txt|json>; found suffix '{item.suffix}'"
                )


_TABLES = {".jsonl": _jsonl, ".csv": _csv}


def load_runs(source: Any, *, tasks: Any = None) -> RunSet:
    """Load answers from JSONL/CSV files or a ``<system>/<task_id>.<ext>`` folder.

    Parameters
    ----------
    source : path or list of paths
        Several sources merge; a ``(system, task_id, repeat)`` given twice is an error.
    tasks : TaskSet, mapping or iterable of task ids, optional
        When given, every task id must be among them.

    Returns
    -------
    RunSet
        A list of :class:`~sgr_kit.types.Answer` (``source`` = ``file:line`` or the file), with
        ``.systems`` and ``.nulls``. A task without an answer is not in the list: scoring reports
        it as ``missing``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.jsonl"
    >>> _ = path.write_text('{"system": "s1", "task_id": "t1", "answer": "a|1"}\\n'
    ...                     '{"system": "s1", "task_id": "t2", "answer": null, "repeat": "1"}\\n')
    >>> runs = load_runs(path, tasks=["t1", "t2"])
    >>> [(a.system, a.task_id, a.repeat, a.text) for a in runs], runs.systems
    ([('s1', 't1', 0, 'a|1')], ('s1',))
    """
    out = _Collector(tasks)
    for item in as_source_list(source):
        path = Path(item)
        if path.is_dir():
            _folder(path, out)
        elif path.is_file():
            reader = _TABLES.get(path.suffix.lower())
            if reader is None:
                raise SgrKitError(
                    f"runs source {path}: expected a .jsonl or .csv file or a folder; found '{path.suffix}'"
                )
            reader(path, out)
        else:
            raise SgrKitError(f"runs source {path}: no such file or folder")
    if not out.answers and not out.nulls:
        raise SgrKitError(
            f"no answers in {', '.join(map(str, as_source_list(source)))}; expected JSONL/CSV records with "
            f"{', '.join(_COLUMNS)} or a <system>/<task_id>.<ext> folder"
        )
    return RunSet(out.answers, systems=out.systems, nulls=out.nulls)

