from __future__ import annotations

import numpy as np
import pandas as pd

from sgr_kit.report.summary import format_summary, summary_table
from sgr_kit.schema import SYNTHETIC_NOTE


def _scores(system="GPT-5.5", synthetic=False):
    return pd.DataFrame({
        "system": [system] * 2, "task_id": ["t1", "t1-g"], "variant": ["constraint", "goal"],
        "repeat": [0, 0], "status": ["parsed", "parse_failure"], "item_f1": [0.5, np.nan],
        "row_f1": [0.25, np.nan], "poa": [1.0, np.nan], "synthetic": [synthetic] * 2,
    })


def test_paper_values_beside_known_systems():
    t = summary_table(_scores()).set_index("variant")
    assert t.loc["constraint", "item_f1"] == 50.0
    # Table 2 of the paper: GPT-5.5 constraint-guided Item-F1 68.22
    assert t.loc["constraint", "paper_item_f1"] == 68.22
    assert t.loc["goal", "n_failed"] == 1


def test_unknown_system_has_no_paper_values():
    t = summary_table(_scores(system="my-agent"))
    assert t["paper_item_f1"].isna().all()


def test_synthetic_note_only_for_synthetic_scores():
    assert SYNTHETIC_NOTE in format_summary(_scores(synthetic=True))
    assert SYNTHETIC_NOTE not in format_summary(_scores(synthetic=False))


def test_overall_row_uses_table_3():
    t = summary_table(_scores()).set_index("variant")
    # Table 3 of the paper: GPT-5.5 Item-F1 66.18, Row-F1 43.37, P.O.A. 90.40
    assert t.loc["overall", ["paper_item_f1", "paper_row_f1", "paper_poa"]].tolist() == [66.18, 43.37, 90.40]


def test_every_answer_failed_under_exclude_shows_na():
    s = _scores()
    s["status"] = "missing"
    s[["item_f1", "row_f1", "poa"]] = np.nan
    t = summary_table(s, failure_policy="exclude")
    assert t[["item_f1", "row_f1", "poa"]].isna().all().all()
    assert "n/a" in format_summary(s, failure_policy="exclude")


def test_a_long_system_name_widens_its_column():
    name = "an-agent-with-a-rather-long-name-v2-2026-preview-x"  # 50 characters
    text = format_summary(_scores(system=name))
    rows = [line for line in text.splitlines() if line.startswith(name)]
    header = next(line for line in text.splitlines() if line.startswith("system"))
    assert len(rows) == 3
    for row in rows:  # the variant starts where the header's does, after a space
        assert row[len(name)] == " " and row.index("constraint" if "constraint" in row else
                                                   ("goal" if "goal" in row else "overall")) == header.index("variant")


def test_a_scorer_error_is_counted_in_the_status_line():
    scores = _scores()
    scores.loc[1, "status"] = "scorer_error"
    assert "scorer_error 1" in format_summary(scores)


def test_fewer_tasks_than_the_paper_is_flagged_and_the_header_promises_what_is_printed():
    few = _scores(system="GPT-5.5")
    text = format_summary(few)
    n = few["task_id"].nunique()
    assert n < 100 and "! scored on fewer tasks than the paper (50 per variant, 100 overall)" in text
    overall = next(line for line in text.splitlines() if line.startswith("GPT-5.5") and " overall " in line)
    assert f" {n}! " in overall
    assert "in parentheses: the paper's Table 2" in text and "brackets" not in text
    paired = few.assign(base_id=few["task_id"].str.removesuffix("-g"))
    assert "[in brackets: the 95% bootstrap interval" in format_summary(paired, ci=True, n_boot=200)
    assert "!" not in format_summary(_scores(system="not in the paper"))
