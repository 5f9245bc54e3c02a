"""Tests of the annotation widget's keyboard shortcuts (:mod:`sgr_kit.annotate.keys`)."""

from __future__ import annotations

from sgr_kit.annotate import LABELS
from sgr_kit.annotate.keys import KEYMAP, KeyCatcher, action_for
from sgr_kit.schema import ANNOTATION_LABELS


def test_every_label_has_one_number_key_in_the_label_sets_order():
    labels = {label: key for key, (action, label) in KEYMAP.items() if action == "label"}
    assert tuple(labels) == LABELS and set(LABELS) == set(ANNOTATION_LABELS)
    assert [labels[label] for label in LABELS] == [str(i) for i in range(1, len(LABELS) + 1)]
    assert LABELS[0] == "correct" and LABELS[-1] == "not_analyzable"


def test_moving_keys():
    assert {k: a for k, (a, _label) in KEYMAP.items() if a != "label"} == {
        "n": "next", "ArrowRight": "next", "p": "previous", "ArrowLeft": "previous", "u": "unlabelled"}
    assert action_for("9") is None and action_for("N") is None and action_for("") is None


def test_the_catcher_watches_exactly_the_mapped_keys_and_passes_key_messages_on():
    catcher = KeyCatcher()
    assert catcher.watched == list(KEYMAP)
    heard: list[str] = []
    catcher.on_key(heard.append)
    for message in ({"kind": "key", "key": "4"}, {"kind": "key", "key": 4}, {"kind": "click"}, "4",
                    {"kind": "key", "key": "n"}):
        catcher._handle_custom_msg(message, [])
    assert heard == ["4", "n"]


def test_the_catcher_keeps_jupyterlab_shortcuts_away_and_leaves_text_fields_alone():
    # the front end's contract, in its source: JupyterLab's documented opt-out of command-mode
    # shortcuts, no action inside text fields or with modifier keys
    source = KeyCatcher._esm
    assert 'setAttribute("data-lm-suppress-shortcuts", "true")' in source
    assert "INPUT|TEXTAREA|SELECT" in source and "event.ctrlKey || event.metaKey || event.altKey" in source
    assert KeyCatcher().scope == ".sgr-annotator"  # the annotator's root element (see widget.py)
