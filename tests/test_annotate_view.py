"""Tests of the annotation widget's HTML (:mod:`sgr_kit.annotate.view`)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from sgr_kit.annotate.view import (
    DEFINITIONS,
    LABEL_NAMES,
    LABELS,
    RULE,
    conditions_html,
    definitions_html,
    task_conditions,
    title_html,
    trajectory_html,
)
from sgr_kit.schema import ERROR_LABELS, ERROR_TYPES

#: The paper's text, beside the checkout (never copied into it).
PAPER = Path(__file__).resolve().parents[1].parent / "shared" / "paper" / "sgr-bench-paper.txt"


def test_the_label_set_is_correct_the_six_error_types_and_not_analyzable():
    assert LABELS == ("correct", *ERROR_TYPES, "not_analyzable")
    assert {k: LABEL_NAMES[k] for k in ERROR_TYPES} == ERROR_LABELS
    assert set(DEFINITIONS) == set(LABELS) and all(len(d) > 40 for d in DEFINITIONS.values())


def test_definitions_follow_appendix_g():
    if not PAPER.is_file():
        pytest.skip("the paper's text is absent: expected ../shared/paper/sgr-bench-paper.txt beside the checkout")
    text = " ".join(PAPER.read_text(encoding="utf-8").split())
    appendix = text[text.index("Appendix G Trajectory Audit Categories"):text.index("Appendix H")]
    for code in ERROR_TYPES:
        # each definition's opening words are the paper's (a lead of five words at least)
        lead = " ".join(DEFINITIONS[code].split()[:5])
        assert lead in appendix, (code, lead)
        assert ERROR_LABELS[code].split()[0] in appendix
    assert "earliest non-recoverable root cause" in appendix and "earliest non-recoverable root cause" in RULE


def test_definitions_table_shows_key_name_and_definition_of_every_label():
    page = definitions_html({label: str(i + 1) for i, label in enumerate(LABELS)})
    rows = re.findall(r"<tr><td class=\"num\"><kbd>(\d)</kbd></td><td><b>([^<]+)</b><span class=\"sgr-def\">", page)
    assert rows == [(str(i + 1), LABEL_NAMES[label]) for i, label in enumerate(LABELS)]
    assert "upstream" in page.lower() or "Upstream" in page


def test_conditions_prefer_the_tasks_own_fields_and_escape_them():
    task = SimpleNamespace(
        instruction="Find <script>x</script>", output_format="a|b", start_url="https://x.org",
        state_conditions=("set filter A",), metadata={"State-Gated Retrieval": ["metadata filter"]},
        rubric={"inclusion_conditions": "only active", "exclusion_conditions": []},
    )
    found = task_conditions(task)
    assert found["state"] == ["set filter A"] and found["inclusion"] == ["only active"] and found["exclusion"] == []
    page = conditions_html(task)
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert 'Exclusion conditions</div><div class="sgr-cond-body sgr-muted">not given' in page
    assert "Task: not available" in conditions_html(None)


def test_title_hides_the_system_only_in_blind_mode():
    score = {"variant": "goal", "domain": "NVD"}
    shown = title_html(("Sys<1>", "nvd_001-g", 2), score, position=0, total=5, blind=False)
    hidden = title_html(("Sys<1>", "nvd_001-g", 2), score, position=0, total=5, blind=True)
    assert "Sys&lt;1&gt;" in shown and "Sys" not in hidden and "Answer 1 of 5" in hidden


def test_trajectory_steps_collapse_and_the_first_site_step_is_marked_and_open():
    steps = [{"step": i, "kind": k, "tool": "T", "url": u, "host": "", "query": q, "text": "", "t": float("nan"),
              "tokens": None} for i, (k, u, q) in enumerate(
        [("search", "", "q1"), ("fetch", "https://a.org/1", ""), ("fetch", "https://site.gov/x", ""),
         ("answer", "", "")])]
    page = trajectory_html(steps, {"reached_site": True, "first_site_step": 2, "steps": 4, "tool_calls": 3,
                                   "hosts": 2, "site_fetch_share": 0.5})
    assert page.count("<details") == 4 and page.count(" open>") == 1
    opened = page[page.index(" open>"):]
    assert "#2" in opened[:200] and "first step on the task's site" in opened[:200]
    assert "task's site first reached at step 2" in html.unescape(page) and "50% of fetches on the site" in page
    never = trajectory_html(steps, {"reached_site": False, "first_site_step": None})
    assert "never reached the task" in html.unescape(never) and " open>" not in never
    assert "No trajectory" in trajectory_html(None)
    long = trajectory_html(steps * 3, None, limit=5)
    assert long.count("<details") == 5 and "(7 more steps)" in long
