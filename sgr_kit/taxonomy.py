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
