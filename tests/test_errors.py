"""The shared checks of input values (``sgr_kit.errors``): bounded descriptions of found values, one YAML reader."""

from __future__ import annotations

import tracemalloc

import pytest

from sgr_kit.errors import SgrKitError, decode_yaml, describe


def _laughs(levels: int = 9) -> list:
    value: list = ["lol"] * 9
    for _ in range(levels):
        value = [value] * 9  # shared: 9**10 strings if written out, a few kilobytes in memory
    return value


VALUES = {
    "laughs": _laughs, "object of laughs": lambda: {"a": _laughs()}, "long text": lambda: "x" * 10_000_000,
    "huge integer": lambda: 10**50_000, "many nested lists": lambda: [[[[[[[]]]]]]] * 10**6,
    "long list": lambda: list(range(10**6)), "wide object": lambda: {str(i): i for i in range(10**5)},
    "long tuple": lambda: ("a",) * 10**6, "NaN": lambda: float("nan"), "bytes": lambda: b"bytes" * 10**6,
}


@pytest.mark.parametrize("make", VALUES.values(), ids=VALUES.keys())
def test_describe_is_bounded_whatever_the_value(make):
    value = make()
    tracemalloc.start()
    try:
        shown = describe(value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(shown) <= 100, shown
    assert peak < 2**20  # what is shown, never the whole value


def test_decode_yaml_reads_plain_data_and_names_file_line_and_column_of_each_problem():
    assert decode_yaml("a: [1, 2.5, text, true, null]\nb: {c: '0x10'}\n", "f.yaml") == {
        "a": [1, 2.5, "text", True, None], "b": {"c": "0x10"}}
    value, node = decode_yaml("- 1\n- 2\n", "f.yaml", node=True)
    assert value == [1, 2] and [item.start_mark.line for item in node.value] == [0, 1]
    assert decode_yaml("", "f.yaml") is None
    for text, message in [
        ("a: &x 1\nb: 2\n", r"f\.yaml:1: column 4: a YAML anchor \(&x\)"),
        ("a: 1\nb: [*x]\n", r"f\.yaml:2: column 5: a YAML alias \(\*x\)"),
        ("base: {a: 1}\nother:\n  <<: *base\n", r"f\.yaml:3: column 7: a YAML alias"),
        ("a: [1\n", r"f\.yaml:2: column 1: not valid YAML"),
        ("a: " + "[" * 101 + "]" * 101, r"f\.yaml:1: column 103: YAML nested 101 or more levels deep"),
        ("a: " + "7" * 5000, r"f\.yaml: holds an integer of more than 4300 digits"),
        ("a: !!python/object/apply:os.system [ls]", r"f\.yaml:1: column 4: not valid YAML \(could not determine"),
    ]:
        with pytest.raises(SgrKitError, match=message):
            decode_yaml(text, "f.yaml")
