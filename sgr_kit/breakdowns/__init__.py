"""Analysis breakdowns of scored runs: pure functions, tidy tables in and out.

Every function takes the tidy tables of the scoring step (the scores table of
``sgr-kit score``, its cells table, an audit-label table) and returns a tidy
DataFrame with fixed columns; values are in percent points, never rounded.

- :mod:`~sgr_kit.breakdowns.groups`: means by cardinality bin (Appendix K), source
  family, ecosystem and domain (Figure 3), per system and pooled, with intervals;
- :mod:`~sgr_kit.breakdowns.audit`: the audit-label file and the error profiles of
  Tables 4, 5 and 6;
- :mod:`~sgr_kit.breakdowns.points`: where the Item-F1 points went (lost points by
  cause, the columns most often wrong, rows lost to key mismatches);
- :mod:`~sgr_kit.breakdowns.reach`: whether the trajectories reached the task's website, and
  the scores with and without reaching it (from :func:`sgr_kit.trajectories.site_reach`);
- :mod:`~sgr_kit.breakdowns.effort`: effort and cost per answer and system, the score-cost
  frontier, and the scores with and without each protocol flag;
- :mod:`~sgr_kit.breakdowns.paper`: computed numbers beside the published ones, and
  the paper's ranking.
"""

from __future__ import annotations

from ..schema import ALL_SYSTEMS, AUDIT_LABELS, AUDIT_TABLE_COLUMNS
from .audit import (audit_scores, error_profile_by_family, error_profile_by_system, error_type_means, load_audit,
                    unscored_note)
from .effort import (
    EFFORT_QUANTITIES, answer_effort, cost_axis, effort_means, effort_wide, flag_means, score_cost_frontier,
)  # fmt: skip
from .groups import bin_means, domain_means, ecosystem_means, family_means, group_columns
from .paper import BESIDE_COLUMNS, RANKING_COLUMNS, beside_paper, beside_paper_wide, paper_ranking
from .reach import (REACH_COLUMNS, REACH_QUANTITIES, REACH_WIDE, describe_reach, reach_notes, reach_scores,
                    reach_wide, site_reach_means)
from .points import CAUSES, answer_losses, key_mismatches, most_wrong, points_lost, rows_lost, wrong_columns

__all__ = [
    "ALL_SYSTEMS", "AUDIT_LABELS", "AUDIT_TABLE_COLUMNS", "BESIDE_COLUMNS", "CAUSES", "RANKING_COLUMNS",
    "bin_means", "family_means", "ecosystem_means", "domain_means", "group_columns",
    "load_audit", "error_profile_by_system", "error_profile_by_family", "audit_scores", "error_type_means", "unscored_note",
    "answer_losses", "points_lost", "wrong_columns", "most_wrong", "key_mismatches", "rows_lost",
    "beside_paper", "beside_paper_wide", "paper_ranking",
    "REACH_COLUMNS", "REACH_QUANTITIES", "REACH_WIDE", "site_reach_means", "reach_scores", "reach_wide", "describe_reach", "reach_notes",
    "EFFORT_QUANTITIES", "answer_effort", "effort_means", "effort_wide", "cost_axis", "score_cost_frontier", "flag_means",
]  # fmt: skip
