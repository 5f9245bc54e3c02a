"""The project's one error class, :class:`SgrKitError`.

Two subclasses: :class:`UnknownIdError`, also a :class:`KeyError`, for lookups of an
unknown id in a mapping; :class:`InsufficientDataError`, for valid input that holds too
little for one analysis (one system for a comparison of systems), which a report page
turns into a sentence while the rest of the page builds. Every problem with user input (a task file, a runs file, a rules file, an
option) is raised as :class:`SgrKitError`, a ``ValueError`` subclass, with a
message naming the input, what was expected, what was found and where.
"""

from __future__ import annotations

import difflib
from typing import Iterable

__all__ = ["SgrKitError", "UnknownIdError", "InsufficientDataError", "closest", "where"]


class SgrKitError(ValueError):
    """Bad input to sgr-kit: the message says which input, where, and what was expected."""


class UnknownIdError(SgrKitError, KeyError):
    """An id that is not among the loaded ones (``tasks["no_such_id"]``).

    Also a :class:`KeyError`, so that mappings keep their semantics (``in``, ``.get``);
    the message names the closest known ids.
    """

    def __str__(self) -> str:  # KeyError would print the message's repr
        return str(self.args[0]) if self.args else ""


class InsufficientDataError(SgrKitError):
    """The input is valid but too small for this analysis; the message says what it holds and what is needed.

    A report page shows the message as the reason a section is missing
    (:meth:`sgr_kit.report.notebook.Notebook.section`); everywhere else it is an ordinary
    :class:`SgrKitError`.
    """


def closest(name: str, known: Iterable[str], *, n: int = 3) -> list[str]:
    """The known ids closest to ``name`` (at most ``n``), for "did you mean" hints.

    Examples
    --------
    >>> closest("arxiv_01", ["arxiv_001", "arxiv_001-g", "census_001"])
    ['arxiv_001', 'arxiv_001-g']
    """
    return difflib.get_close_matches(str(name), sorted(map(str, known)), n=n, cutoff=0.6)


def where(path: object, line: int | None = None) -> str:
    """Format a location as ``path`` or ``path:line`` for error messages.

    Examples
    --------
    >>> where("runs.jsonl", 12)
    'runs.jsonl:12'
    >>> where("tasks/")
    'tasks/'
    """
    return f"{path}:{line}" if line is not None else f"{path}"
