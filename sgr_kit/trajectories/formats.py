"""The formats of trajectory files, and how a file's format is told from its content.

**Formats** are a registry (:data:`FORMATS`, :func:`register_format`): a name (what ``format=``
forces), a label for notes, a ``sniff`` that tells the format from a file's first JSON object
(for a JSON document: the document, or its first element), and a reader factory (an object
with ``line(obj, *, loc)``, ``finish() -> list[Step]`` and a ``totals`` attribute; see
:mod:`~sgr_kit.trajectories.agents`). They are tried in order, the first whose ``sniff`` says
yes reads the file: the records (``steps`` or ``messages``) and documented steps (``kind``)
first, unless the object is a Harbor trajectory's or a Gemini CLI session's (which hold those
keys too), then the agents' formats, and OpenAI-style chat messages, told only by a ``role``,
last. An inspect_ai eval log is told by its bytes (:func:`is_inspect_file`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import SgrKitError
from ..schema import STEP_KINDS
from . import claude, codex, gemini, harbor, inspect_log, openai_api
from .records import NativeReader

__all__ = ["TrajectoryFormat", "FORMATS", "register_format", "format_names", "find_format", "sniff",
           "surely_trajectory", "is_inspect_file"]  # fmt: skip


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
        the record formats (:mod:`~sgr_kit.trajectories.records`) and for inspect_ai logs.
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


def _marked(obj: dict) -> bool:
    """A Harbor trajectory or a Gemini CLI session (they also hold ``steps``, ``messages`` or ``kind``)."""
    return harbor.sniff(obj) or gemini.sniff(obj)


def _is_record(obj: dict) -> bool:
    """A trajectory record: ``steps`` or ``messages`` (not those of a Harbor trajectory or a Gemini CLI session)."""
    return ("steps" in obj or "messages" in obj) and not _marked(obj)


def _agent(entries, *, streamed: bool = False) -> list[TrajectoryFormat]:
    return [TrajectoryFormat(name, label, test, reader, streamed=streamed) for name, label, test, reader in entries]


#: The formats, in the order they are tried (the first whose ``sniff`` says yes reads the file).
FORMATS: list[TrajectoryFormat] = [
    TrajectoryFormat("records", "trajectory records", _is_record, None),
    TrajectoryFormat("steps", "documented steps", lambda o: "kind" in o and not _marked(o), NativeReader),
    *_agent(claude.FORMATS, streamed=True),
    *_agent([(name, label, test, reader) for name, (label, test, reader) in zip(("codex-exec", "codex-rollout"),
                                                                                 codex.FORMATS)], streamed=True),
    TrajectoryFormat(harbor.FORMAT, harbor.LABEL, harbor.sniff, harbor.HarborReader, objects=harbor.continued),
    TrajectoryFormat(gemini.FORMAT, gemini.LABEL, gemini.sniff, gemini.GeminiReader),
    *_agent(openai_api.FORMATS),
    # not JSON lines: told by its bytes and read by inspect_ai itself; listed for its name
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


def find_format(name: str | None) -> TrajectoryFormat | None:
    """The format named ``name`` (None for None), else an error listing the names."""
    if name is None:
        return None
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise SgrKitError(f"trajectories: unknown format {name!r}; expected one of {', '.join(format_names())}")


def sniff(obj: dict) -> TrajectoryFormat | None:
    """The first format of :data:`FORMATS` whose ``sniff`` takes ``obj`` (a file's first JSON object)."""
    return next((f for f in FORMATS if f.sniff(obj)), None)


def surely_trajectory(obj: Any) -> bool:
    """Is ``obj`` a trajectory's first object beyond doubt (an answer's JSON table may have a ``kind`` column)?"""
    if not isinstance(obj, dict):
        return False
    fmt = sniff(obj)
    if fmt is None:
        return False
    if fmt.name == "steps":
        return obj.get("kind") in STEP_KINDS
    if fmt.name == "openai-chat":
        return obj.get("role") in openai_api.CHAT_ROLES
    return True


def is_inspect_file(path: Path, forced: TrajectoryFormat | None = None) -> bool:
    """Is ``path`` an inspect_ai eval log (or forced to be read as one)?

    A ``.eval`` forced as inspect_ai, or told as one by its bytes, is one; so is a ``.eval``
    that is not a zip at all or a damaged one (its reader then says so, naming the file).
    """
    if forced is not None and forced.name != inspect_log.FORMAT:
        return False
    if path.suffix.lower() == ".eval":
        return True
    return forced is not None or inspect_log.is_inspect_log(path)
