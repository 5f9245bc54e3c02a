"""The paper's published numbers as tidy data, and a consistency audit of them.

``data/reference/`` holds every number the paper prints (Tables 1-6, the family
means of Finding 3, the cardinality figures of Appendix K, the dataset statistics
of section 3.3 and every other number of the text), exactly as printed, in
percent points. The loaders return tidy DataFrames; :func:`audit` recomputes every
number the paper derives from others and says which do not follow.

Examples
--------
>>> from sgr_kit import reference
>>> reference.table2().query("system == 'GPT-5.5' and variant == 'overall'")["value"].item()
66.18
>>> a = reference.audit()
>>> sorted(a.loc[a["verdict"] == "inconsistent", "id"])  # doctest: +NORMALIZE_WHITESPACE
['f1.mean_item_f1.from_variants', 's4_2.cli_mean_item_f1.from_variants',
 'table2.overall.Kimi K2.5']
"""

from __future__ import annotations

from .audit import audit, audit_summary, rounding_tolerance
from . import tables
from .tables import *  # noqa: F403 (the loaders and names listed in tables.__all__)

__all__ = [*tables.__all__, "audit", "audit_summary", "rounding_tolerance"]
