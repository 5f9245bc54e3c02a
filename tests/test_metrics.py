"""Item-F1, Row-F1 and P.O.A. as pure functions of counts (paper, Appendix A).

Known answers: the formulas of Appendix A; the 3x3 cases of the benchmark's
deterministic scorer (public repository Ninggggy/sgr-bench-extend,
ten_task_phase/runtime/score.py); for P.O.A. on permutations, the identity
P.O.A. = (1 + Kendall's tau) / 2 checked against scipy.stats.kendalltau
(Appendix A cites Kendall's tau as the underlying rank agreement).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import kendalltau

from sgr_kit.errors import SgrKitError
from sgr_kit.metrics import item_f1, ordered_pairs, pairwise_order, poa, row_f1


def test_item_f1_formula():
    # Appendix A: 2 C_item / (N_gold + N_pred)
    assert item_f1(9, 9, 9) == 1.0
    assert item_f1(6, 9, 6) == pytest.approx(0.8)  # one row of three missing
    assert item_f1(8, 9, 9) == pytest.approx(8 / 9)  # one non-key field wrong
    assert item_f1(0, 9, 0) == 0.0  # NONE
    assert item_f1(3, 12, 16) == pytest.approx(6 / 28)


def test_row_f1_formula():
    # Appendix A: 2 C_row / (|R_gold| + |R_pred|)
    assert row_f1(3, 3, 3) == 1.0
    assert row_f1(2, 3, 2) == pytest.approx(0.8)
    assert row_f1(2, 3, 3) == pytest.approx(2 / 3)
    assert row_f1(0, 3, 0) == 0.0


def test_zero_denominators_give_zero():
    assert item_f1(0, 0, 0) == 0.0
    assert row_f1(0, 0, 0) == 0.0


def test_poa_formula_and_the_fewer_than_two_convention():
    assert poa(3, 3, 3) == 1.0
    assert poa(0, 3, 3) == 0.0
    assert poa(4, 6, 4) == pytest.approx(2 / 3)
    assert poa(0, 0, 1) == 0.0  # |S| < 2: not evaluable, 0 by convention
    assert poa(0, 0, 0) == 0.0


def test_pairwise_order_uses_first_positions_and_ignores_extras():
    assert pairwise_order("abc", "abc") == (3, 3)
    assert pairwise_order("abc", "cba") == (0, 3)
    assert pairwise_order("abc", "baab") == (0, 1)  # a and b shared; b first
    assert pairwise_order("abc", "") == (0, 0)


def test_pairwise_order_counts_by_hand():
    # reference a b c d; predicted first positions: b 1, a 3, d 4, c 5
    # pairs (a,b) no, (a,c) yes, (a,d) yes, (b,c) yes, (b,d) yes, (c,d) no
    assert pairwise_order("abcd", "xbxadc") == (4, 6)


@given(st.permutations(list(range(8))))
def test_poa_is_one_plus_kendall_tau_over_two(permutation):
    gold = list(range(8))
    correct, pairs = pairwise_order(gold, permutation)
    tau = kendalltau(gold, [permutation.index(g) for g in gold]).statistic
    assert poa(correct, pairs, 8) == pytest.approx((1 + tau) / 2)


def test_ordered_pairs_matches_brute_force():
    for positions in itertools.permutations(range(5)):
        brute = sum(1 for i, j in itertools.combinations(range(5), 2) if positions[i] < positions[j])
        assert ordered_pairs(positions) == (brute, 10)


@given(st.integers(3, 30))
def test_reversed_order_scores_zero(n):
    gold = list(range(n))
    correct, pairs = pairwise_order(gold, gold[::-1])
    assert poa(correct, pairs, n) == 0.0


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_f1_metrics_are_in_the_unit_interval(a, b, c):
    correct = min(a, b, c)
    assert 0.0 <= item_f1(correct, b, c) <= 1.0
    assert 0.0 <= row_f1(correct, b, c) <= 1.0


@given(st.lists(st.integers(0, 9)), st.lists(st.integers(0, 12)))
def test_poa_is_in_the_unit_interval(gold, pred):
    gold = list(dict.fromkeys(gold))
    correct, pairs = pairwise_order(gold, pred)
    shared = len(set(gold) & set(pred))
    assert 0.0 <= poa(correct, pairs, shared) <= 1.0


@pytest.mark.parametrize(
    ("function", "args", "message"),
    [
        (item_f1, (10, 9, 9), r"item_f1: expected counts 0 <= correct <= min\(gold, pred\); found correct=10"),
        (item_f1, (-1, 9, 9), "item_f1: expected counts"),
        (row_f1, (3, 3, 2), r"row_f1: expected counts .*; found correct=3, gold=3, pred=2"),
        (poa, (1, 2, 3), r"poa: expected pairs = shared_keys \(shared_keys - 1\) / 2"),
        (poa, (4, 3, 3), "found correct_pairs=4, pairs=3, shared_keys=3"),
    ],
)
def test_inconsistent_counts_are_errors(function, args, message):
    with pytest.raises(SgrKitError, match=message):
        function(*args)
