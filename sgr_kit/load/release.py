"""Read SGR-Bench release files into raw task records.

A *source* is detected from the path:

- ``*.jsonl``: one task per line (blank lines allowed); every location is ``file:line``;
- ``*.json``: one task object, or a list of them (``data_en/{constraint,goal}/<task_id>.json``);
  a file without ``task_id`` takes the id from its name;
- ``*.parquet``: one task per row (``file:row``);
- a folder: every ``*.jsonl``, ``*.json`` and ``*.parquet`` file below it, in sorted order.
  Where a folder holds both ``data_en`` and ``data_zh``, only ``data_en`` is read (a note says
  so). Files in which no record has any of ``oracle_answer``, ``rubric``, ``output_format``,
  ``instruction`` (answer runs, pairing files, dataset cards) are skipped with a note;
- ``owner/name`` that is not an existing path: a Hugging Face dataset (``PKUAIWeb/SGR-BENCH``).
  Its ``*.jsonl`` files are downloaded with :mod:`huggingface_hub` (taken from the local cache
  when ``HF_HUB_OFFLINE`` is set; a 10 s timeout on the first request) and read as a folder.
  When the Hub cannot be reached, the error says how to pass local files instead.

``metadata`` and ``rubric`` may be objects or JSON-encoded strings (the ``*_hf.jsonl`` files);
both are decoded here. Every problem is a :class:`Finding`, so that a validation run can report
all of them; :func:`sgr_kit.load.load_tasks` raises the errors.

Copies of one task: two records with the same ``task_id`` that agree on every field sgr-kit
reads (:data:`TASK_FIELDS`, after decoding) are one task. Copies inside one folder source (the
release ships ``constraint.jsonl``, ``constraint_hf.jsonl`` and ``data_en/constraint/*.json``) are
collapsed with a note; copies across separately given sources are collapsed with a warning;
records that differ are an error naming both locations.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import SgrKitError, decode_json, describe, json_error, valid_unicode, where

__all__ = [
    "DATASET_ID",
    "LANGUAGES",
    "REQUIRED_KEYS",
    "TASK_FIELDS",
    "Finding",
    "Record",
    "as_source_list",
    "decode_object",
    "looks_like_dataset_id",
    "read_sources",
    "read_text",
    "jsonl_lines",
    "language_of",
    "json_error",
    "valid_unicode",
]

#: The official release on the Hugging Face Hub.
DATASET_ID = "PKUAIWeb/SGR-BENCH"
#: Keys every task record must have.
REQUIRED_KEYS = ("task_id", "domain", "oracle_answer")
#: The fields a task is built from; two records agreeing on all of them are copies of one task.
TASK_FIELDS = (
    "task_id",
    "domain",
    "oracle_output_cardinality",
    "instruction",
    "output_format",
    "oracle_answer",
    "metadata",
    "rubric",
)
_SUFFIXES = (".jsonl", ".json", ".parquet")
# a file found in a folder is read as tasks when one of its records has one of these keys
_TASKISH = frozenset({"oracle_answer", "rubric", "output_format", "instruction"})
_DATASET_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem or note found while loading tasks.

    Attributes
    ----------
    severity : {"error", "warning", "info"}
    task_id : str
        The task concerned (``""`` for file-level findings).
    kind : str
        ``read``, ``duplicate``, ``schema``, ``unparseable_reference``, ``cardinality``,
        ``domain``, ``pairing`` or ``unpaired``.
    message : str
        Names the location (``file:line``), what was expected and what was found.
    """

    severity: str
    task_id: str
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class Record:
    """One task record as read from a release file (``metadata``/``rubric`` decoded).

    Attributes
    ----------
    data : dict
    source : str
        ``file:line`` (JSONL), ``file:row`` (parquet), ``file`` or ``file[i]`` (JSON).
    group : str
        The file, or for per-task JSON files their folder (used to summarize copies).
    origin : int
        Index of the source argument the record came from.
    language : str
        ``"zh"`` for a record read below a ``data_zh`` folder, ``"en"`` below ``data_en``,
        else the language asked for (default ``"en"``).
    """

    data: Mapping[str, Any]
    source: str
    group: str
    origin: int
    language: str = "en"


def as_source_list(source: Any, *more: Any) -> list[Any]:
    """Flatten ``source`` (a path, a dataset id or a list of them) and ``more`` into one list.

    Examples
    --------
    >>> as_source_list(["a.jsonl", "b.jsonl"], "c.jsonl")
    ['a.jsonl', 'b.jsonl', 'c.jsonl']
    """
    out: list[Any] = []
    for item in (source, *more):
        if isinstance(item, (str, os.PathLike)):
            out.append(item)
        elif isinstance(item, Mapping) or hasattr(item, "columns"):  # a record or a table, not where one is
            kind = "a table" if hasattr(item, "columns") else f"a record (keys {', '.join(map(str, list(item)[:6]))})"
            raise SgrKitError(f"source: found {kind} where a path was expected; sources are read from files: "
                              f"write the records to a .jsonl file (one JSON object per line) and give its path")
        elif isinstance(item, Iterable) and not isinstance(item, bytes):
            for inner in item:
                out.extend(as_source_list(inner))
        else:
            raise SgrKitError(f"source {item!r}: expected a path, a dataset id or a list of them")
    return out


def looks_like_dataset_id(text: str) -> bool:
    """True when ``text`` has the ``owner/name`` shape of a Hub dataset id and is not a path.

    Names ending in a data-file suffix (``.jsonl``, ``.json``, ``.parquet``, ``.csv``) are taken
    for mistyped paths.

    Examples
    --------
    >>> looks_like_dataset_id("PKUAIWeb/SGR-BENCH")
    True
    >>> looks_like_dataset_id("data/constraint.jsonl")
    False
    """
    text = str(text)
    if not _DATASET_RE.match(text) or text.lower().endswith((*_SUFFIXES, ".csv")):
        return False
    return not Path(text).exists()


def decode_object(value: Any, *, key: str, loc: str) -> dict[str, Any]:
    """Decode a ``metadata``/``rubric`` value: an object, a JSON-encoded object, or absent.

    Examples
    --------
    >>> decode_object('{"columns": ["a"]}', key="rubric", loc="goal_hf.jsonl:3")
    {'columns': ['a']}
    >>> decode_object(None, key="metadata", loc="x.jsonl:1")
    {}
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, str):
        value, _ = decode_json(value, loc, loc=f"{loc}: key '{key}' (a JSON-encoded string)")
    if not isinstance(value, Mapping):
        raise SgrKitError(f"{loc}: key '{key}' should be an object; found {type(value).__name__}")
    return _drop_nulls(dict(value))


def _drop_nulls(value: Any) -> Any:
    # Parquet structs pad absent keys with nulls; a null key is treated as absent everywhere.
    if isinstance(value, Mapping):
        return {str(k): _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_drop_nulls(v) for v in value]
    return value


def _normalize(data: Any, *, loc: str, stem: str | None = None) -> dict[str, Any]:
    """Check one decoded JSON value is a task record and decode its nested objects."""
    if not isinstance(data, Mapping):
        raise SgrKitError(f"{loc}: expected a JSON object (one task); found {type(data).__name__}")
    rec = {str(k): v for k, v in data.items() if v is not None}
    if "task_id" not in rec and stem is not None:
        rec["task_id"] = stem
    for key in REQUIRED_KEYS:
        if key not in rec:
            raise SgrKitError(f"{loc}: required key '{key}' is missing (a task needs {', '.join(REQUIRED_KEYS)})")
    for key in ("task_id", "domain"):
        if not isinstance(rec[key], str) or not rec[key].strip():
            raise SgrKitError(f"{loc}: key '{key}' should be a non-empty string; found {describe(rec[key])}")
        rec[key] = rec[key].strip()
    for key in ("oracle_answer", "instruction", "output_format"):
        if key in rec and not isinstance(rec[key], str):
            raise SgrKitError(
                f"{loc}: task {rec['task_id']}: key '{key}' should be a string; found {type(rec[key]).__name__}"
            )
    for key in ("metadata", "rubric"):
        rec[key] = decode_object(rec.get(key), key=key, loc=f"{loc}: task {rec['task_id']}")
    return rec


def read_text(path: Path, what: str = "") -> str:
    """A file's text as UTF-8 (a byte-order mark dropped); errors name the file.

    Bytes that are not UTF-8 are an error naming the line they are on. ``what`` (``"label
    file"``) is put before the path in messages.
    """
    prefix = f"{what} " if what else ""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SgrKitError(f"{prefix}{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SgrKitError(f"{prefix}{where(path, line)}: not UTF-8 text (byte {exc.start}: {exc.reason}); "
                          f"expected UTF-8 text") from None  # fmt: skip


def jsonl_lines(text: str) -> list[tuple[int, str]]:
    r"""The non-blank lines of JSONL text with their 1-based numbers.

    Lines end at ``\n`` only (a ``\r`` before it is dropped): JSON text may
    hold U+2028 and other characters that ``str.splitlines`` would split on.

    Examples
    --------
    >>> jsonl_lines('{"a": "x\u2028y"}\r\n\n{"b": 1}')
    [(1, '{"a": "x\u2028y"}'), (3, '{"b": 1}')]
    """
    return [(n, line.removesuffix("\r")) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]


def _checked_json(text: str, path: Path, line: int | None, findings: list[Finding]) -> Any:
    data, n = decode_json(text, path, line)
    if n:
        findings.append(Finding(
            "warning", "", "read",
            f"{where(path, line)}: {n} lone surrogate escape(s) (no Unicode character) replaced by U+FFFD",
        ))
    return data


_Item = tuple[Any, str, str, "str | None"]  # (decoded JSON value, location, group, file stem)


def _items_jsonl(path: Path) -> tuple[list[_Item], list[Finding]]:
    items, findings = [], []
    for n, line in jsonl_lines(read_text(path)):
        try:
            items.append((_checked_json(line, path, n, findings), where(path, n), str(path), None))
        except SgrKitError as exc:
            findings.append(Finding("error", "", "read", str(exc)))
    return items, findings


def _items_json(path: Path) -> tuple[list[_Item], list[Finding]]:
    findings: list[Finding] = []
    data = _checked_json(read_text(path), path, None, findings)
    if isinstance(data, list):
        return [(item, f"{path}[{i}]", str(path), None) for i, item in enumerate(data)], findings
    return [(data, str(path), str(path.parent), path.stem)], findings


def _items_parquet(path: Path) -> tuple[list[_Item], list[Finding]]:
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise SgrKitError(f"{path}: not a readable parquet file ({exc})") from None
    return [(row, where(path, n), str(path), None) for n, row in enumerate(rows, start=1)], []


_READERS = {".jsonl": _items_jsonl, ".json": _items_json, ".parquet": _items_parquet}


#: The release's two languages: ``data_en/`` and ``data_zh/`` (same ids, translated prose).
LANGUAGES = ("en", "zh")


def language_of(path: Path, default: str = "en") -> str:
    """``"zh"`` below a ``data_zh`` folder, ``"en"`` below ``data_en``, else ``default``.

    Examples
    --------
    >>> language_of(Path("SGR-BENCH/data_zh/goal/nvd_001-g.json")), language_of(Path("tasks.jsonl"))
    ('zh', 'en')
    """
    for part in reversed(path.parts):
        if part.lower() in ("data_en", "data_zh"):
            return part.lower()[-2:]
    return default


def _read_file(path: Path, origin: int, *, in_folder: bool, language: str = "en") -> tuple[list[Record], list[Finding]]:
    items, findings = _READERS[path.suffix.lower()](path)
    if in_folder and not any(isinstance(d, Mapping) and not _TASKISH.isdisjoint(d) for d, *_ in items):
        # answer runs, a pairing file or a dataset card's JSON lying beside the tasks
        return [], [Finding("info", "", "read", f"{path}: skipped, no record in it looks like a task")]
    records = []
    for data, loc, group, stem in items:
        try:
            records.append(Record(_normalize(data, loc=loc, stem=stem), loc, group, origin, language_of(path, language)))
        except SgrKitError as exc:
            findings.append(Finding("error", "", "read", str(exc)))
    return records, findings


def _walk(root: Path, language: str = "en") -> tuple[list[Path], list[Finding]]:
    files, notes = [], []
    if language == "zh" and (root / "data_zh").is_dir():  # the Chinese tasks only: the rest is English
        root = root / "data_zh"
        notes.append(Finding("info", "", "read", f"{root}: the Chinese tasks (--language zh) are read"))
    elif language == "zh" and language_of(root, "") != "zh":
        raise SgrKitError(f"task source {root}: --language zh asks for the Chinese tasks, but there is no data_zh folder")
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        if "data_en" in dirnames and "data_zh" in dirnames:
            dirnames.remove("data_zh")
            notes.append(Finding(
                "info", "", "read",
                f"{Path(dirpath) / 'data_zh'}: skipped; the English tasks in data_en are read instead "
                f"(--language zh reads the Chinese ones)",
            ))
        for name in sorted(filenames):
            if not name.startswith(".") and Path(name).suffix.lower() in _READERS:
                files.append(Path(dirpath) / name)
    return files, notes


def _download(repo_id: str, language: str = "en") -> Path:
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE
    how = (
        f"download the dataset's files (https://huggingface.co/datasets/{repo_id}) and pass the folder, "
        f"or the files themselves: --tasks constraint.jsonl --tasks goal.jsonl"
    )
    try:
        from huggingface_hub import HfApi, snapshot_download
    except ImportError:
        raise SgrKitError(f"Hugging Face dataset {repo_id!r}: huggingface_hub is not installed; {how}") from None
    try:
        if not offline:  # fail fast when the Hub cannot be reached
            HfApi().dataset_info(repo_id, timeout=10)
        folder = snapshot_download(
            repo_id,
            repo_type="dataset",
            etag_timeout=10,
            local_files_only=offline,
            # constraint/goal(.jsonl|_hf.jsonl) hold the English tasks; the Chinese ones are data_zh's per-task files
            allow_patterns=["*.jsonl"] if language == "en" else ["data_zh/*", "data_zh/**/*.json"],
        )
    except Exception as exc:  # the Hub client raises many network and HTTP error types
        why = "offline mode (HF_HUB_OFFLINE) and the dataset is not in the local cache" if offline else (
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no detail'}"
        )
        raise SgrKitError(f"Hugging Face dataset {repo_id!r} could not be reached ({why}); {how}") from None
    return Path(folder)


def _check_local(path: Path, source: str) -> None:
    """A missing path whose folder exists here is a mistyped local path, never a Hub dataset id: say so."""
    parent = path.parent
    if str(parent) in ("", ".") or not parent.is_dir() or source == DATASET_ID:
        return
    from ..errors import closest

    try:
        names = sorted(p.name for p in parent.iterdir() if not p.name.startswith("."))
    except OSError:
        names = []
    near = closest(path.name, names)
    hint = (f"closest in {parent}: {', '.join(str(parent / n) for n in near)}" if near else
            f"{parent} holds {', '.join(names[:5]) + (' ...' if len(names) > 5 else '') if names else 'nothing'}")
    raise SgrKitError(f"task source {source}: no such file or folder ({hint}); the folder {parent} exists here, so "
                      f"this is read as a local path, not as a Hugging Face dataset id")  # fmt: skip


def _read_one(source: Any, origin: int, language: str = "en") -> tuple[list[Record], list[Finding]]:
    path = Path(source)
    findings: list[Finding] = []
    if not path.exists():
        _check_local(path, str(source))
        if looks_like_dataset_id(str(source)):
            path = _download(str(source), language)
            findings.append(Finding("info", "", "read", f"Hugging Face dataset {source} read from {path}"))
        else:
            raise SgrKitError(
                f"task source {source}: no such file or folder; expected a release .jsonl, .json or "
                f".parquet file, a folder of them, or a Hugging Face dataset id such as {DATASET_ID}"
            )
    if path.is_file():
        if path.suffix.lower() not in _READERS:
            raise SgrKitError(f"task source {path}: expected a .jsonl, .json or .parquet file; found '{path.suffix}'")
        if language == "zh" and language_of(path, "") != "zh":
            raise SgrKitError(
                f"task source {path}: --language zh asks for the Chinese tasks, but this file is not below a data_zh "
                f"folder (the release's Chinese translation); pass the release folder or its data_zh folder, or "
                f"score English answers with --language en"
            )
        records, more = _read_file(path, origin, in_folder=False, language=language)
        return records, findings + more
    files, notes = _walk(path, language)
    findings += notes
    if not files:
        raise SgrKitError(f"task source {path}: no .jsonl, .json or .parquet file in this folder")
    records: list[Record] = []
    for file in files:
        try:
            got, more = _read_file(file, origin, in_folder=True, language=language)
        except SgrKitError as exc:
            findings.append(Finding("error", "", "read", str(exc)))
            continue
        records += got
        findings += more
    return records, findings


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in TASK_FIELDS)


def read_sources(sources: list[Any], *, language: str = "en") -> tuple[list[Record], list[Finding]]:
    """Read every source and merge them into one record per task id.

    Parameters
    ----------
    sources : list
        Paths or dataset ids (see the module docstring).
    language : {"en", "zh"}, default "en"
        Which translation to read where a folder (or the Hub dataset) holds both ``data_en`` and
        ``data_zh``; a file below ``data_zh`` is Chinese whatever this says. Records of two
        languages in one set are an error (their ids are the same).

    Returns
    -------
    records : list of Record
        The first copy of every task id, in reading order.
    findings : list of Finding
        Read errors, duplicate-id errors and warnings, notes.
    """
    if not sources:
        raise SgrKitError("no task source given; expected a release file, a folder or a dataset id")
    if language not in LANGUAGES:
        raise SgrKitError(f"language must be one of {', '.join(LANGUAGES)}; found {language!r}")
    all_records: list[Record] = []
    findings: list[Finding] = []
    for origin, source in enumerate(sources):
        try:
            got, more = _read_one(source, origin, language)
        except SgrKitError as exc:
            findings.append(Finding("error", "", "read", str(exc)))
            continue
        all_records += got
        findings += more
    languages = sorted({rec.language for rec in all_records})
    if len(languages) > 1:
        first = {lang: next(r.source for r in all_records if r.language == lang) for lang in languages}
        findings.append(Finding(
            "error", "", "read",
            f"tasks in {' and '.join(languages)} were given together ({', '.join(first.values())}): the two "
            f"languages share task ids; load each language on its own (--language en|zh) and score runs "
            f"against the language they name",
        ))
        all_records = [r for r in all_records if r.language == languages[0]]
    kept: dict[str, Record] = {}
    copies: dict[tuple[str, str, str], list[str]] = {}
    for rec in all_records:
        tid = rec.data["task_id"]
        first = kept.get(tid)
        if first is None:
            kept[tid] = rec
        elif _same(first.data, rec.data):
            severity = "info" if first.origin == rec.origin and first.group != rec.group else "warning"
            copies.setdefault((severity, first.group, rec.group), []).append(tid)
        else:
            differing = [k for k in TASK_FIELDS if first.data.get(k) != rec.data.get(k)]
            findings.append(Finding(
                "error", tid, "duplicate",
                f"task {tid} appears twice with different content: {first.source} and {rec.source} "
                f"(differing: {', '.join(differing)}); keep one copy or pass only one of the sources",
            ))
    for (severity, first_group, group), ids in copies.items():
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        findings.append(Finding(
            severity, ids[0] if len(ids) == 1 else "", "duplicate",
            f"{len(ids)} task(s) in {group} repeat identical records of {first_group}; "
            f"the first copy is used ({shown})",
        ))
    return list(kept.values()), findings
