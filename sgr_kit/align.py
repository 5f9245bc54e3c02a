"""Row alignment by row key (paper section 3.4, Appendix A; the reference scorer's rules).

A row's identity is the tuple of its canonical row-key cells. Predicted rows are
visited in answer order:

- the first row with a key of the reference earns credit (its fields are
  compared with that reference row);
- a later row with a key already seen is a duplicate (no credit, still counted
  in the denominators);
- a row whose key is not in the reference is an extra.

Reference keys must be unique: a reference with two rows of one key cannot be
scored and is reported as an error naming the task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

from .errors import SgrKitError

__all__ = ["CREDIT", "DUPLICATE", "EXTRA", "Alignment", "reference_index", "align_rows"]

CREDIT = "credit"
DUPLICATE = "duplicate"
EXTRA = "extra"


@dataclass(frozen=True, slots=True)
class Alignment:
    """How predicted rows map to reference rows.

    Attributes
    ----------
    kinds : tuple of str
        Per predicted row: ``"credit"``, ``"duplicate"`` or ``"extra"``.
    targets : tuple of int or None
        Per predicted row: the reference row of its key (for credit rows the row
        it is scored against; for duplicates of a reference key the row they
        repeat); None for keys not in the reference.
    omitted : tuple of int
        Reference rows whose key was never predicted, in reference order.
    positions : tuple of int
        The first predicted position of each shared key, in reference order
        (the input of :func:`sgr_kit.metrics.ordered_pairs`).
    """

    kinds: tuple[str, ...]
    targets: tuple[int | None, ...]
    omitted: tuple[int, ...]
    positions: tuple[int, ...]

    @property
    def shared_keys(self) -> int:
        """``|S|``: reference keys that occur among the predicted keys."""
        return len(self.positions)


def reference_index(keys: Sequence[Hashable], *, task_id: str = "") -> dict[Hashable, int]:
    """Map each reference row key to its row, checking that keys are unique.

    Parameters
    ----------
    keys : sequence of hashable
        The reference's row keys, in reference order.
    task_id : str, optional
        Named in the error message.

    Returns
    -------
    dict
        key -> 0-based reference row.

    Raises
    ------
    SgrKitError
        When two reference rows share a key.

    Examples
    --------
    >>> reference_index([("a",), ("b",)])
    {('a',): 0, ('b',): 1}
    """
    index: dict[Hashable, int] = {}
    for row, key in enumerate(keys):
        first = index.setdefault(key, row)
        if first != row:
            raise SgrKitError(
                f"task {task_id or '?'}: reference rows must have unique row keys; "
                f"rows {first + 1} and {row + 1} share the key {key!r}"
            )
    return index


def align_rows(gold_index: Mapping[Hashable, int], pred_keys: Sequence[Hashable]) -> Alignment:
    """Align predicted rows to reference rows by key.

    Parameters
    ----------
    gold_index : mapping
        key -> reference row, from :func:`reference_index`.
    pred_keys : sequence of hashable
        The predicted rows' keys, in answer order.

    Returns
    -------
    Alignment

    Examples
    --------
    >>> gold = reference_index(["a", "b", "c"])
    >>> a = align_rows(gold, ["b", "x", "a", "b", "x"])
    >>> a.kinds
    ('credit', 'extra', 'credit', 'duplicate', 'duplicate')
    >>> a.targets, a.omitted, a.positions
    ((1, None, 0, 1, None), (2,), (2, 0))
    """
    seen: set[Hashable] = set()
    kinds: list[str] = []
    targets: list[int | None] = []
    first = [-1] * len(gold_index)
    for position, key in enumerate(pred_keys):
        target = gold_index.get(key)
        targets.append(target)
        if key in seen:
            kinds.append(DUPLICATE)
            continue
        seen.add(key)
        if target is None:
            kinds.append(EXTRA)
        else:
            kinds.append(CREDIT)
            first[target] = position
    return Alignment(
        kinds=tuple(kinds),
        targets=tuple(targets),
        omitted=tuple(row for row, position in enumerate(first) if position < 0),
        positions=tuple(position for position in first if position >= 0),
    )
