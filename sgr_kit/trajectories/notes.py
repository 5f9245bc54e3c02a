"""Notes of a read: what each source was read as, and what was corrected or skipped in it.

A note is not an error: the trajectories were read, and the note says how. Readers say what
they corrected as :class:`ReaderNote` s (a ``kind`` that is the same words for every file, the
place it first happened, and the sentence for that file), at most one per file and kind. A read
(:func:`~sgr_kit.trajectories.iter_trajectories`) gathers them in a :class:`NoteSink` and says
each kind **once**, at its end: for one file the file's own sentence, for several files their
count and the first place (``2 files: totals restarted (a second process did not carry the
count over): the segments are added (first: runs/a.jsonl:353)``), never one line per file.
What the sources were read as is said once per source (``runs: read 41 files as Codex CLI
exec events``).

Notes go to a ``notes`` callable when one is given, else they are :class:`TrajectoryNote`
warnings, which the command line prints (and ``--quiet`` silences).
"""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

__all__ = ["TrajectoryNote", "ReaderNote", "NoteSink"]


class TrajectoryNote(UserWarning):
    """What a trajectory source was read as, and what was corrected or skipped in it (a note, not an error)."""


class ReaderNote(str):
    """One thing a reader says about one file: a correction it made, or what it skipped.

    The text is the sentence for that file alone (``place: detail``); the attributes say how
    notes of several files are said together.

    Attributes
    ----------
    kind : str
        What happened, in the same words for every file (``"totals restarted (...): the
        segments are added"``): notes of one kind are said together.
    place : str
        Where it first happened in this file (``file:line``, or the file).
    detail : str
        The sentence for this file alone (``"totals restarted 2 times, first at line 353..."``);
        ``kind`` when not given.

    Examples
    --------
    >>> note = ReaderNote("totals restarted: the segments are added", "a.jsonl:353", "restarted once at line 353")
    >>> str(note), note.kind
    ('a.jsonl:353: restarted once at line 353', 'totals restarted: the segments are added')
    """

    kind: str
    place: str
    detail: str

    def __new__(cls, kind: str, place: str, detail: str = "") -> "ReaderNote":
        text = f"{place}: {detail or kind}" if place else detail or kind
        note = super().__new__(cls, text)
        note.kind, note.place, note.detail = kind, place, detail or kind
        return note

    def __reduce__(self):  # (a str subclass with attributes: pickled by its parts)
        return (ReaderNote, (self.kind, self.place, self.detail))


class NoteSink:
    """Gathers the notes of one read and says each kind once (at ``flush()``).

    Parameters
    ----------
    sink : callable or None
        Called with each note's text; None: notes are :class:`TrajectoryNote` warnings.

    Examples
    --------
    >>> said = []
    >>> sink = NoteSink(said.append)
    >>> for f in ("a.jsonl", "b.jsonl"):
    ...     sink.add(ReaderNote("totals restarted: the segments are added", f"{f}:3", "restarted at line 3"))
    >>> sink.flush()
    >>> said
    ['2 files: totals restarted: the segments are added (first: a.jsonl:3)']
    """

    def __init__(self, sink: Callable[[str], None] | None = None) -> None:
        self.sink = sink
        self.formats = Counter()  # labels of the formats read since the last source ended
        self.groups = {}  # kind -> [files, first place, first detail]
        self._seen = set()  # (file, kind) already counted

    def read_as(self, label: str) -> None:
        """Count one file read as the format named ``label`` (``"Codex CLI exec events"``)."""
        self.formats[label] += 1

    def add(self, note: ReaderNote | str, *, file: str | None = None) -> None:
        """Take one note (a :class:`ReaderNote`, or a sentence naming its own place) of ``file``."""
        if not isinstance(note, ReaderNote):  # a plain sentence naming its own place: its own kind
            text = note[len(file) + 2:] if file and note.startswith(f"{file}: ") else note
            note = ReaderNote(text, file if file and note.startswith(f"{file}: ") else "", "")
        key = (file or note.place, note.kind)
        if key in self._seen:
            return  # once per file and kind
        self._seen.add(key)
        group = self.groups.get(note.kind)
        if group is None:
            self.groups[note.kind] = [1, note.place, note.detail]
        else:
            group[0] += 1

    def extend(self, notes: Iterable[ReaderNote | str], *, file: str) -> None:
        """Take every note a reader made of ``file``."""
        for note in notes:
            self.add(note, file=file)

    def end_source(self, source: Path | str) -> None:
        """Say what the files of ``source`` (a path the user gave) were read as, once."""
        if self.formats:
            parts = [f"{n} file{'s' if n > 1 else ''} as {label}" for label, n in self.formats.most_common()]
            self._say(f"{source}: read {', '.join(parts)}")
        self.formats.clear()

    def flush(self) -> None:
        """Say every kind of note once: one file's own sentence, or the count of files and the first place."""
        for kind, (count, place, detail) in self.groups.items():
            if count == 1:
                self._say(f"{place}: {detail}" if place else detail)
            else:
                self._say(f"{count} files: {kind} (first: {place})")
        self.groups.clear()
        self._seen.clear()

    def _say(self, text: str) -> None:
        if self.sink is not None:
            self.sink(text)
        else:
            warnings.warn(text, TrajectoryNote, stacklevel=5)
