"""The three SGR-Bench metrics as pure functions of counts (paper, Appendix A).

Counts come from row alignment (:mod:`sgr_kit.align`); with ``k`` schema columns:

- ``C_item`` correct fields; ``N_gold`` = reference rows * k; ``N_pred`` = sum
  over predicted rows of ``max(k, cells in the row)``;
- ``C_row`` predicted rows with all k fields correct and exactly k cells;
- P.O.A. compares the first predicted positions of the row keys shared by the
  prediction and the reference, over every pair ordered by the reference.

Every metric is a fraction in [0, 1]; a zero denominator gives 0, as in the
reference scorer (Appendix A's conservative convention for P.O.A.).
"""

from __future__ import annotations

from bisect import bisect_left

from typing import Hashable, Sequence

from .errors import SgrKitError

__all__ = ["item_f1", "row_f1", "pairwise_order", "ordered_pairs", "poa"]


def _check_counts(name: str, correct: int, gold: int, pred: int) -> None:
    if min(correct, gold, pred) < 0 or correct > min(gold, pred):
        raise SgrKitError(
            f"{name}: expected counts 0 <= correct <= min(gold, pred); "
            f"found correct={correct}, gold={gold}, pred={pred}"
        )


def item_f1(correct_fields: int, gold_fields: int, pred_fields: int) -> float:
    """Item-level F1 (Appendix A): ``2 C_item / (N_gold + N_pred)``.

    Parameters
    ----------
    correct_fields : int
        ``C_item``, fields of credited rows whose canonical value is non-empty
        and equals the reference's.
    gold_fields : int
        ``N_gold`` = reference rows * k.
    pred_fields : int
        ``N_pred`` = sum over predicted rows of ``max(k, cells in the row)``.

    Returns
    -------
    float
        0 when ``N_gold + N_pred`` is 0.

    References
    ----------
    SGR-Bench paper, Appendix A, "Item-level F1".

    Examples
    --------
    A 3x3 reference, one non-key field wrong (the reference scorer's case, 8/9):

    >>> item_f1(8, 9, 9)
    0.888...
    >>> item_f1(0, 0, 0)
    0.0
    """
    _check_counts("item_f1", correct_fields, gold_fields, pred_fields)
    total = gold_fields + pred_fields
    return 2 * correct_fields / total if total else 0.0


def row_f1(correct_rows: int, gold_rows: int, pred_rows: int) -> float:
    """Row-level F1 (Appendix A): ``2 C_row / (|R_gold| + |R_pred|)``.

    Parameters
    ----------
    correct_rows : int
        ``C_row``, predicted rows with all k fields correct and exactly k cells.
    gold_rows, pred_rows : int
        Rows in the reference and in the prediction (duplicates and extras included).

    Returns
    -------
    float
        0 when both row counts are 0.

    References
    ----------
    SGR-Bench paper, Appendix A, "Row-level F1".

    Examples
    --------
    >>> row_f1(2, 3, 2)  # one of three rows missing, the other two right
    0.8
    """
    _check_counts("row_f1", correct_rows, gold_rows, pred_rows)
    total = gold_rows + pred_rows
    return 2 * correct_rows / total if total else 0.0


def ordered_pairs(positions: Sequence[int]) -> tuple[int, int]:
    """Count the pairs of a position sequence that keep the reference order.

    Parameters
    ----------
    positions : sequence of int
        The predicted position of each shared key, listed in reference order.

    Returns
    -------
    tuple of int
        ``(correct_pairs, pairs)``: pairs ``i < j`` with
        ``positions[i] < positions[j]``, and all ``n (n - 1) / 2`` pairs. Counted with a
        sorted list of the earlier positions, in ``O(n log n)`` comparisons (a 1,000-row
        answer has half a million pairs).

    Examples
    --------
    >>> ordered_pairs([0, 2, 1])
    (2, 3)
    """
    n = len(positions)
    correct = 0
    seen: list = []  # earlier positions, sorted: each new one is later than bisect_left(...) of them
    for here in positions:
        k = bisect_left(seen, here)
        correct += k
        seen.insert(k, here)
    return correct, n * (n - 1) // 2


def pairwise_order(gold_keys: Sequence[Hashable], pred_keys: Sequence[Hashable]) -> tuple[int, int]:
    """The pairs behind P.O.A.: shared keys in reference order, first predicted positions.

    Parameters
    ----------
    gold_keys : sequence of hashable
        Row keys of the reference, in reference order (unique).
    pred_keys : sequence of hashable
        Row keys of the prediction, in answer order; a repeated key counts at its
        first position; keys absent from the reference are ignored.

    Returns
    -------
    tuple of int
        ``(correct_pairs, pairs)`` over ``P(S)``, the pairs ``(u, v)`` of shared
        keys with ``u`` before ``v`` in the reference; a pair is correct when
        ``u`` is also predicted before ``v``.

    References
    ----------
    SGR-Bench paper, Appendix A, "Pairwise Order Accuracy".

    Examples
    --------
    >>> pairwise_order(["a", "b", "c"], ["c", "x", "b", "a", "c"])
    (0, 3)
    >>> pairwise_order(["a", "b", "c"], ["a", "c", "b"])
    (2, 3)
    """
    first: dict[Hashable, int] = {}
    for position, key in enumerate(pred_keys):
        first.setdefault(key, position)
    return ordered_pairs([first[key] for key in gold_keys if key in first])


def poa(correct_pairs: int, pairs: int, shared_keys: int) -> float:
    """Pairwise order accuracy (Appendix A): ``correct_pairs / |P(S)|``, 0 when ``|S| < 2``.

    Parameters
    ----------
    correct_pairs : int
        Pairs of shared keys whose reference order the prediction keeps.
    pairs : int
        ``|P(S)|`` = ``|S| (|S| - 1) / 2``.
    shared_keys : int
        ``|S|``, reference keys that occur among the predicted keys.

    Returns
    -------
    float
        0 when fewer than two keys are shared (order is not evaluable; the
        paper's conservative convention).

    References
    ----------
    SGR-Bench paper, Appendix A, "Pairwise Order Accuracy (P.O.A.)".

    Examples
    --------
    >>> poa(0, 3, 3)  # three rows in reverse order
    0.0
    >>> poa(2, 3, 3)
    0.666...
    >>> poa(0, 0, 1)
    0.0
    """
    if shared_keys < 0 or pairs != shared_keys * (shared_keys - 1) // 2 or not 0 <= correct_pairs <= pairs:
        raise SgrKitError(
            "poa: expected pairs = shared_keys (shared_keys - 1) / 2 and 0 <= correct_pairs <= pairs; "
            f"found correct_pairs={correct_pairs}, pairs={pairs}, shared_keys={shared_keys}"
        )
    return correct_pairs / pairs if shared_keys >= 2 else 0.0
