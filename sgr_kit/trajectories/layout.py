"""Where trajectories sit: the system, task and repeat of each file from its place in a folder.

A source (:func:`source_trajectories`) is one of:

- a **file** read by itself (:func:`~sgr_kit.trajectories.files.read_file`): records name their
  own system, task and repeat; an inspect_ai log names them per sample and epoch; any other
  agent file takes the model it names as its system and its name without suffix as its task;
- a **folder** ``<system>/<task_id>.<ext>`` or ``<system>/<task_id>/<repeat>.<ext>`` (``ext``
  one of :data:`TRAJECTORY_SUFFIXES`): the folders name the system, the task and the repeat of
  each file. An inspect_ai log in a system's folder gives one trajectory per sample and epoch
  of that system (the sample's id its task, its epoch minus one its repeat). A Harbor agent or
  trial folder (``trajectory.json`` or ``episode-N/``, directly or under ``agent/``) may stand
  where a file would (``<system>/<task_id>/`` or ``<system>/<task_id>/<repeat>/``). Files
  directly in the folder (``.jsonl``, ``.json``, ``.eval``) are read as if given by themselves,
  and so are Harbor trial folders in it (a Harbor job folder: each trial's task from its
  ``result.json``, its repeats counted in name order); so an inspect_ai eval set's log folder
  reads as it is (its index files ``logs.json`` and ``eval-set.json``, beside a hidden
  ``.eval-set-id``, are left aside). Hidden files are ignored; a FIFO or any
  other file that is not a regular file is skipped with a note, never opened;
- a **Harbor agent or trial folder** given by itself: one trajectory.
"""

from __future__ import annotations

import re
import stat
from collections import Counter
from pathlib import Path
from typing import Iterator

from ..errors import SgrKitError
from . import harbor
from .files import ReadOptions, main_model, read_file
from .formats import FORMATS, surely_trajectory
from .notes import ReaderNote
from .records import REPEAT_MAX, check_name, lines
from .steps import Trajectory

__all__ = ["TRAJECTORY_SUFFIXES", "source_trajectories", "is_trajectory_source", "kind_of_file"]

#: Suffixes of the trajectory files of a folder ``<system>/<task_id>[/<repeat>].<suffix>``.
TRAJECTORY_SUFFIXES = (".jsonl", ".json", ".txt", ".eval")
_DIGITS = re.compile(r"[0-9]+")
#: The files inspect_ai's ``eval_set`` writes beside its logs (with a hidden ``.eval-set-id``).
_EVAL_SET_FILES = ("logs.json", "eval-set.json")
_SKIPPED = "skipped (not a regular file or folder: a FIFO, socket or device is never read)"


def kind_of_file(path: Path) -> str:
    """``"file"``, ``"dir"`` or, for anything else (a FIFO, a socket, a device, a broken link), ``"other"``.

    Looked up without opening the path: opening a FIFO waits for a writer forever.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return "other"
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def _eval_set_index(path: Path) -> bool:
    """Is ``path`` the index inspect_ai's ``eval_set`` keeps of its logs (not a trajectory)?"""
    return path.name in _EVAL_SET_FILES and (path.parent / ".eval-set-id").is_file()


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def _repeat_of(path: Path) -> int | None:
    stem = path.stem if path.suffix.lower() in TRAJECTORY_SUFFIXES else path.name
    return int(stem) if _DIGITS.fullmatch(stem) and int(stem) <= REPEAT_MAX else None


def _repeat_order(path: Path) -> tuple:
    r = _repeat_of(path)
    return (0, r, "") if r is not None else (1, 0, path.name)


def source_trajectories(path: Path, options: ReadOptions) -> Iterator[Trajectory]:
    """The trajectories of one source the user gave (a file, a folder, a Harbor agent or trial folder)."""
    what = kind_of_file(path)
    if what == "dir":
        if harbor.agent_folder(path) is not None:
            yield _harbor(path, None, options)
        else:
            yield from _folder(path, options)
    elif what == "file":
        if path.suffix.lower() not in TRAJECTORY_SUFFIXES:
            raise SgrKitError(f"trajectories {path}: expected a .jsonl or .json file of trajectory records (or an "
                              f"agent's .jsonl, .json, .txt or .eval file) or a folder; found '{path.suffix}'")
        yield from read_file(path, None, options)
    elif path.exists():
        raise SgrKitError(f"trajectories {path}: not a regular file or folder (a FIFO, socket or device)")
    else:
        raise SgrKitError(f"trajectories {path}: no such file or folder")


def _harbor(folder: Path, place: tuple[str, str, int] | None, options: ReadOptions) -> Trajectory:
    """One Harbor agent or trial folder: its ``trajectory.json``, else its terminus-2 episodes."""
    agent = harbor.agent_folder(folder)
    assert agent is not None
    model, task = harbor.trial_defaults(agent)
    trajectory = agent / "trajectory.json"
    if trajectory.is_file():
        (tr,) = read_file(trajectory, place, options)
        if place is None:
            tr = Trajectory(main_model(tr.totals) or model, task, 0, tr.steps, tr.source, tr.format, tr.totals,
                            tr.calls_totals)  # fmt: skip
        return tr
    steps, notes = harbor.episode_steps(agent)
    options.notes.read_as(harbor.EPISODES_LABEL)
    options.notes.extend(notes, file=str(agent))
    options.notes.add(ReaderNote("Harbor agent folders without trajectory.json: read from their episode-N "
                                 "response files (no tokens, no times)", str(agent)), file=str(agent))  # fmt: skip
    totals = {"model": model or None} if model else None
    return Trajectory(*(place or (model, task, 0)), tuple(steps), str(agent), harbor.FORMAT, totals, None)


def _folder(root: Path, options: ReadOptions) -> Iterator[Trajectory]:
    notes = options.notes
    trials: Counter = Counter()  # (system, task) -> trials read (a Harbor job's repeats)
    for entry in _visible(root):
        what = kind_of_file(entry)
        if what == "other":
            notes.add(ReaderNote(_SKIPPED, str(entry)), file=str(entry))
            continue
        if what == "file":
            if _eval_set_index(entry):  # inspect_ai's own index of the logs beside it: nothing to read
                continue
            if entry.suffix.lower() in (".jsonl", ".json", ".eval"):
                yield from read_file(entry, None, options)
            continue
        if harbor.is_trial(entry):  # a Harbor job's trial: its task from result.json, repeats in name order
            tr = _harbor(entry, None, options)
            key = (tr.system, tr.task_id)
            yield Trajectory(tr.system, tr.task_id, trials[key], tr.steps, tr.source, tr.format, tr.totals,
                             tr.calls_totals)  # fmt: skip
            trials[key] += 1
            continue
        yield from _system(entry, options)


def _system(folder: Path, options: ReadOptions) -> Iterator[Trajectory]:
    """The trajectories of a system's folder: ``<task_id>.<ext>``, ``<task_id>/<repeat>.<ext>``, logs of many samples."""
    notes = options.notes
    system = check_name(folder.name, "system", str(folder))
    # tasks in name order (a task's file and its repeats folder side by side), repeats in number order
    items = [(p, kind_of_file(p)) for p in _visible(folder)]
    for item, what in sorted(items, key=lambda pk: (pk[0].stem if pk[1] == "file" else pk[0].name, pk[1] == "dir")):
        if what == "other":
            notes.add(ReaderNote(_SKIPPED, str(item)), file=str(item))
        elif what == "dir" and harbor.agent_folder(item) is not None:
            yield _harbor(item, (system, item.name, 0), options)
        elif what == "dir":
            for f in sorted(_visible(item), key=_repeat_order):
                kind_f = kind_of_file(f)
                if kind_f == "other":
                    notes.add(ReaderNote(_SKIPPED, str(f)), file=str(f))
                    continue
                repeat = _repeat_of(f)
                if kind_f == "dir" and repeat is not None and harbor.agent_folder(f) is not None:
                    yield _harbor(f, (system, item.name, repeat), options)
                    continue
                if kind_f != "file" or f.suffix.lower() not in TRAJECTORY_SUFFIXES or repeat is None:
                    raise SgrKitError(f"{f}: expected <system>/<task_id>/<repeat>.jsonl (or .json, .txt, .eval) "
                                      f"with a repeat of digits 0-9 (at most {REPEAT_MAX})")  # fmt: skip
                yield from read_file(f, (system, item.name, repeat), options)
        elif item.suffix.lower() == ".eval" or (item.suffix.lower() == ".json" and _inspect_json(item)):
            yield from read_file(item, (system, "", 0), options)  # its samples name their tasks and epochs
        elif item.suffix.lower() in TRAJECTORY_SUFFIXES:
            yield from read_file(item, (system, item.stem, 0), options)
        else:
            raise SgrKitError(f"{item}: expected a trajectory file <system>/<task_id>.jsonl (or .json, .txt, "
                              f".eval); found suffix '{item.suffix}'")  # fmt: skip


def _inspect_json(path: Path) -> bool:
    from .inspect_log import is_inspect_log

    return is_inspect_log(path)


def is_trajectory_source(path) -> bool:
    """True when ``path`` holds trajectories rather than answers (looked up without reading it whole).

    A folder is one when a system folder in it holds ``.jsonl`` or ``.eval`` files, or ``.json``
    or ``.txt`` files whose first JSON object is a trajectory's (answers are ``.md``/``.txt``/``.json``
    texts), or Harbor agent or trial folders, or when it holds inspect_ai eval logs itself (an eval
    set's log folder); a JSONL file when its first record has ``steps`` or ``messages``.
    """
    path = Path(path)
    try:
        if kind_of_file(path) == "dir":
            if harbor.agent_folder(path) is not None:
                return True
            for entry in _visible(path):
                what = kind_of_file(entry)
                if what == "dir":
                    if harbor.is_trial(entry):
                        return True
                    for item in _visible(entry):
                        kind = kind_of_file(item)
                        if kind == "file" and _is_trajectory_file(item):
                            return True
                        if kind == "dir" and (harbor.agent_folder(item) is not None or any(
                                kind_of_file(f) == "file" and _is_trajectory_file(f) for f in _visible(item))):
                            return True  # fmt: skip
                        if kind == "file":
                            break  # one answer file tells a folder of answers
                elif what == "file" and entry.suffix.lower() == ".jsonl" and _first_record_is_trajectory(entry):
                    return True
                elif what == "file" and entry.suffix.lower() == ".eval" and _inspect_json(entry):
                    return True
            return False
        if kind_of_file(path) == "file" and path.suffix.lower() == ".jsonl":
            return _first_record_is_trajectory(path)
    except (OSError, SgrKitError, ValueError, RecursionError):
        return False
    return False


def _is_trajectory_file(path: Path) -> bool:
    import json

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
            return _inspect_json(path) or _head_is_marked(text)
        return surely_trajectory(obj)
    for n, line in lines(path):
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
        return surely_trajectory(obj)
    return False


def _head_is_marked(text: str) -> bool:
    """A JSON document too long to parse from its first MB: an ATIF trajectory or a Gemini CLI session by its head?"""
    head = text[:4096]
    return '"schema_version": "ATIF' in head or ('"sessionId"' in head and '"projectHash"' in head)


def _first_record_is_trajectory(path: Path) -> bool:
    import json

    for n, line in lines(path):
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            return False
        return isinstance(obj, dict) and ("steps" in obj or "messages" in obj)
    return False
