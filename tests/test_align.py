"""Row alignment by key: credit for the first occurrence, duplicates, extras, omissions.

Source of the rules: the benchmark's deterministic scorer (public repository
Ninggggy/sgr-bench-extend, ten_task_phase/runtime/score.py, ``score``), restated
in the project's reference-scorer notes, "Alignment".
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgr_kit.align import CREDIT, DUPLICATE, EXTRA, align_rows, reference_index
from sgr_kit.errors import SgrKitError


def test_reference_index_maps_keys_to_rows():
    assert reference_index([("a", "1"), ("a", "2"), ("b", "1")]) == {("a", "1"): 0, ("a", "2"): 1, ("b", "1"): 2}


def test_duplicate_reference_keys_are_an_error_naming_the_task():
    message = r"task nvd_003: reference rows must have unique row keys; rows 1 and 3 share the key \('a',\)"
    with pytest.raises(SgrKitError, match=message):
        reference_index([("a",), ("b",), ("a",)], task_id="nvd_003")


def test_first_occurrence_earns_credit_later_ones_are_duplicates():
    gold = reference_index(["a", "b"])
    alignment = align_rows(gold, ["a", "a", "b", "a"])
    assert alignment.kinds == (CREDIT, DUPLICATE, CREDIT, DUPLICATE)
    assert alignment.targets == (0, 0, 1, 0)
    assert alignment.omitted == ()
    assert alignment.positions == (0, 2)


def test_unknown_keys_are_extras_and_repeated_extras_duplicates():
    alignment = align_rows(reference_index(["a"]), ["x", "a", "x"])
    assert alignment.kinds == (EXTRA, CREDIT, DUPLICATE)
    assert alignment.targets == (None, 0, None)


def test_omitted_rows_and_positions_follow_reference_order():
    alignment = align_rows(reference_index(["a", "b", "c", "d"]), ["d", "b"])
    assert alignment.omitted == (0, 2)
    assert alignment.positions == (1, 0)  # b at position 1, d at position 0
    assert alignment.shared_keys == 2


def test_no_prediction():
    alignment = align_rows(reference_index(["a", "b"]), [])
    assert (alignment.kinds, alignment.omitted, alignment.shared_keys) == ((), (0, 1), 0)


@given(
    st.lists(st.integers(0, 9), unique=True, min_size=1, max_size=8),
    st.lists(st.integers(0, 15), max_size=20),
)
def test_every_row_is_accounted_for(gold_keys, pred_keys):
    alignment = align_rows(reference_index(gold_keys), pred_keys)
    assert len(alignment.kinds) == len(pred_keys)
    assert alignment.shared_keys + len(alignment.omitted) == len(gold_keys)
    assert alignment.kinds.count(CREDIT) == alignment.shared_keys
    assert alignment.kinds.count(CREDIT) + alignment.kinds.count(EXTRA) == len(set(pred_keys))
