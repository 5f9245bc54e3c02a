"""Statistics of sgr-kit: honest uncertainty on top of :mod:`sgr_kit.aggregate`.

Pure functions, tidy in and tidy out: each takes the scores table of ``sgr-kit score``
and returns a DataFrame with fixed, documented columns, in percent points like the
paper's tables, reproducible from ``seed``. The unit of independence is the **base
problem** (its two variants share one reference answer, and every system answers the
same problems): intervals resample base problems, paired tests pair the variants of
a problem, and pooled results average over systems per problem first.

- :func:`bootstrap_means`: means per system, variant and metric with clustered
  bootstrap intervals (optionally by group and pooled over systems);
- :func:`paired_tests`: constraint minus goal per system and pooled (t, Wilcoxon,
  sign-flip, effect sizes, Holm and Benjamini-Hochberg, detectable difference);
- :func:`system_matrix`: every pair of systems, with interval and sign-flip test;
- :func:`repeat_stats`: average and best of n repeats, spread across repeats;
- :func:`power`: problems or repeats needed, and the detectable difference;
- ``describe_*``: one plain sentence per result row, for notebooks and reports;
- :func:`agreement`: annotators' agreement on audit labels (kappas, alpha, bootstrap over tasks).

Every result table has a boolean ``synthetic`` column, True when any input row is
synthetic (the demo).
"""

from .agreement import agreement, category_agreement, confusion_matrix
from .bootstrap import bootstrap_means, mean_columns
from .compare import MATRIX_COLUMNS, system_matrix
from .describe import (
    describe_comparison, describe_matrix, describe_mean, describe_paired, describe_power, describe_repeats, format_p,
)  # fmt: skip
from .multiple import benjamini_hochberg, holm
from .paired import PAIRED_COLUMNS, paired_tests, wilcoxon_test
from .power import POWER_COLUMNS, detectable_difference, power, problems_needed, t_power
from .repeats import REPEAT_COLUMNS, repeat_stats
from .signflip import min_problems, signflip_exact, smallest_p

__all__ = [
    "bootstrap_means", "paired_tests", "system_matrix", "repeat_stats", "power",
    "describe_mean", "describe_paired", "describe_comparison", "describe_matrix", "describe_repeats",
    "describe_power", "format_p", "holm", "benjamini_hochberg", "signflip_exact", "wilcoxon_test", "t_power",
    "detectable_difference", "problems_needed", "mean_columns", "PAIRED_COLUMNS", "MATRIX_COLUMNS",
    "REPEAT_COLUMNS", "POWER_COLUMNS", "agreement", "category_agreement", "confusion_matrix", "min_problems", "smallest_p",
]  # fmt: skip
