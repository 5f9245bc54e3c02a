"""SGR-Bench's source taxonomy: domain -> ecosystem -> source family, and cardinality bins.

The six families and their task counts are given in section 3.3 of the paper
(environmental monitoring 24, regulatory resources 22, scholarly archives 18,
life-science resources 18, official statistics 12, vulnerability databases 6);
the 14 release domains and their grouping into 12 ecosystems come from the
official release (two KEGG domains share the KEGG ecosystem, two CFPB domains
the CFPB ecosystem). The cardinality bins are those of Appendix K.
"""

from __future__ import annotations

import warnings

import pandas as pd

__all__ = [
    "RELEASE_DOMAIN_TASKS",
    "RELEASE_ID_PREFIXES",
    "FAMILIES",
    "BINS",
    "TAXONOMY",
    "classify_domain",
    "cardinality_bin",
    "taxonomy_table",
]

#: Source families in the order of section 3.3.
FAMILIES: tuple[str, ...] = (
    "environmental monitoring",
    "regulatory resources",
    "scholarly archives",
    "life-science resources",
    "official statistics",
    "vulnerability databases",
)

#: Cardinality bins of Appendix K, by number of reference rows.
BINS: tuple[str, ...] = ("1-2", "3-5", "6-10", "11+")

#: domain -> (ecosystem, family)
TAXONOMY: dict[str, tuple[str, str]] = {
    "ARXIV": ("arXiv", "scholarly archives"),
    "EUROPEPMC_PMC": ("Europe PMC", "scholarly archives"),
    "REPTILE_DATABASE": ("Reptile Database", "life-science resources"),
    "KEGG_BRITE": ("KEGG", "life-science resources"),
    "KEGG_GENOME": ("KEGG", "life-science resources"),
    "WATER_OFFICE": ("Water Office", "environmental monitoring"),
    "WATER_QUALITY_PORTAL": ("Water Quality Portal", "environmental monitoring"),
    "NOAA_NCEI_CLIMATE_AT_A_GLANCE": ("NOAA NCEI Climate at a Glance", "environmental monitoring"),
    "CFPB_REPORTS": ("CFPB", "regulatory resources"),
    "CFPB_COMPLAINT_DATABASE": ("CFPB", "regulatory resources"),
    "COMPTOX_CHEMEXPO": ("CompTox ChemExpo", "regulatory resources"),
    "CENSUS_GOV": ("Census.gov", "official statistics"),
    "CDC_WONDER": ("CDC WONDER", "official statistics"),
    "NVD": ("NVD", "vulnerability databases"),
}

OTHER = "other"

#: Base tasks per domain in the public release (``PKUAIWeb/SGR-BENCH``; 50 base tasks, 100 with
#: both variants; section 3.3 of the paper gives the families' totals, these are the release's own
#: per-domain counts). ``sgr-kit validate`` sets a task set's counts beside them.
RELEASE_DOMAIN_TASKS: dict[str, int] = {
    "ARXIV": 4, "CDC_WONDER": 2, "CENSUS_GOV": 4, "CFPB_COMPLAINT_DATABASE": 3, "CFPB_REPORTS": 4,
    "COMPTOX_CHEMEXPO": 4, "EUROPEPMC_PMC": 5, "KEGG_BRITE": 2, "KEGG_GENOME": 2,
    "NOAA_NCEI_CLIMATE_AT_A_GLANCE": 2, "NVD": 3, "REPTILE_DATABASE": 5, "WATER_OFFICE": 5,
    "WATER_QUALITY_PORTAL": 5,
}  # fmt: skip
#: Task-id prefixes of the public release and the domains each covers (both CFPB domains share
#: ``consumerfinance_``, both KEGG domains ``genome_``). Europe PMC's tasks have a prefix of their
#: own that is not recorded here: ids of that domain are not checked by prefix. Numbers after the
#: prefix have gaps, and ids were renumbered between revisions of the release (``comptox_001`` in
#: one revision is ``comptox_010`` in another).
RELEASE_ID_PREFIXES: dict[str, tuple[str, ...]] = {
    "arxiv": ("ARXIV",), "census": ("CENSUS_GOV",), "climategov": ("NOAA_NCEI_CLIMATE_AT_A_GLANCE",),
    "comptox": ("COMPTOX_CHEMEXPO",), "consumerfinance": ("CFPB_COMPLAINT_DATABASE", "CFPB_REPORTS"),
    "genome": ("KEGG_BRITE", "KEGG_GENOME"), "nvd": ("NVD",), "reptile": ("REPTILE_DATABASE",),
    "wateroffice": ("WATER_OFFICE",), "waterquality": ("WATER_QUALITY_PORTAL",), "wonder": ("CDC_WONDER",),
}  # fmt: skip


def classify_domain(domain: str, *, warn: bool = True) -> tuple[str, str]:
    """Return ``(ecosystem, family)`` for a release domain.

    Parameters
    ----------
    domain : str
        The task's ``domain`` field, e.g. ``"KEGG_BRITE"`` (case-insensitive).
    warn : bool, default True
        Emit a ``UserWarning`` when the domain is unknown.

    Returns
    -------
    tuple of str
        The ecosystem and family; ``("other", "other")`` for an unknown domain.

    Examples
    --------
    >>> classify_domain("KEGG_BRITE")
    ('KEGG', 'life-science resources')
    >>> classify_domain("cfpb_reports")
    ('CFPB', 'regulatory resources')
    """
    key = str(domain).strip().upper()
    if key in TAXONOMY:
        return TAXONOMY[key]
    if warn:
        warnings.warn(
            f"unknown domain {domain!r}: ecosystem and family set to 'other' "
            f"(known domains: {', '.join(sorted(TAXONOMY))})",
            UserWarning,
            stacklevel=2,
        )
    return OTHER, OTHER


def cardinality_bin(rows: int) -> str:
    """Return the Appendix K cardinality bin of a reference with ``rows`` rows.

    Examples
    --------
    >>> [cardinality_bin(n) for n in (1, 2, 3, 5, 6, 10, 11, 44)]
    ['1-2', '1-2', '3-5', '3-5', '6-10', '6-10', '11+', '11+']
    """
    if rows <= 2:
        return "1-2"
    if rows <= 5:
        return "3-5"
    if rows <= 10:
        return "6-10"
    return "11+"


def taxonomy_table() -> pd.DataFrame:
    """The taxonomy as a tidy table with columns ``domain, ecosystem, family``.

    Examples
    --------
    >>> t = taxonomy_table()
    >>> len(t), t["ecosystem"].nunique(), t["family"].nunique()
    (14, 12, 6)
    """
    return pd.DataFrame(
        [(d, e, f) for d, (e, f) in TAXONOMY.items()], columns=["domain", "ecosystem", "family"]
    )
