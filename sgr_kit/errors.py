"""The project's one error class.

Every problem with user input (a task file, a runs file, a rules file, an
option) is raised as :class:`SgrKitError`, a ``ValueError`` subclass, with a
message naming the input, what was expected, what was found and where.
"""

from __future__ import annotations

__all__ = ["SgrKitError", "where"]


class SgrKitError(ValueError):
    """Bad input to sgr-kit: the message says which input, where, and what was expected."""


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
