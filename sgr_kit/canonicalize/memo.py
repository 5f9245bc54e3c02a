"""The one memo of the scoring core: a canonicalizer remembers its result per distinct raw cell."""

from __future__ import annotations

from typing import Callable

__all__ = ["MEMO_LIMIT", "memoized"]

#: Distinct raw cells remembered per column function before the memo starts afresh.
MEMO_LIMIT = 100_000


def memoized(function: Callable[[str], str], *, limit: int = MEMO_LIMIT) -> Callable[[str], str]:
    """``function`` remembering its results per distinct raw cell.

    Answers to one task repeat the same cells many times (every system that
    gets a value right writes it the same way), so a task's canonicalizers see
    few distinct cells; the memo is bounded (``limit`` entries, then cleared)
    so that memory stays flat.

    Examples
    --------
    >>> calls = []
    >>> f = memoized(lambda s: calls.append(s) or s.upper())
    >>> f("a"), f("a"), len(calls)
    ('A', 'A', 1)
    """
    memo: dict[str, str] = {}

    def canonical(raw: str) -> str:
        try:
            return memo[raw]
        except KeyError:
            if len(memo) >= limit:
                memo.clear()
            value = memo[raw] = function(raw)
            return value

    return canonical
