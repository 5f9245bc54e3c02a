"""Names from data shown safely: controls visible, cut with an ellipsis, no mathtext, escaped in HTML."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sgr_kit.explore.render import plain_label
from sgr_kit.text import CONTROL, LABEL_WIDTH, figure_label, name_html, short_label, visible


def test_ansi_escapes_and_direction_controls_are_made_visible():
    assert visible("A\x1b[2J\x1b[31mB\u202eC\u200bD") == "A⟨U+001B⟩[2J⟨U+001B⟩[31mB⟨RLO⟩C⟨ZWSP⟩D"
    assert visible("line\rover") == "line⟨CR⟩over"  # a carriage return cannot overwrite a terminal line
    assert visible("a\nb\tc") == "a\nb\tc" and visible("a\nb", newlines=False) == "a b"


def test_a_long_name_is_cut_to_a_fixed_width_with_an_ellipsis():
    assert short_label("n" * 5000) == "n" * (LABEL_WIDTH - 1) + "…"
    assert short_label("short") == "short" and short_label(None) == ""


def test_a_figure_label_is_never_mathtext():
    assert figure_label("Agent $\\frac$ v2") == "Agent \\$\\frac\\$ v2"


def test_a_name_in_a_page_is_escaped_isolated_and_cut():
    shown = name_html("<script>x</script>" + "y" * 5000)
    assert "<script>" not in shown and shown.startswith("<bdi") and len(shown) < 1000


def test_the_explorer_marks_controls_the_same_way():
    assert plain_label("a\u202eb\x1b") == visible("a\u202eb\x1b", newlines=False)


@given(st.text())
def test_no_control_character_survives(text):
    for shown in (visible(text), short_label(text), figure_label(text), name_html(text)):
        assert not CONTROL.search(shown) and "\r" not in shown
    assert len(short_label(text)) <= LABEL_WIDTH
