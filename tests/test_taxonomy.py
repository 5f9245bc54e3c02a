from __future__ import annotations

import pytest

from sgr_kit.taxonomy import BINS, FAMILIES, TAXONOMY, cardinality_bin, classify_domain, taxonomy_table

# Release domain counts (base problems), from the release README; family task
# counts from the paper, section 3.3 (24/22/18/18/12/6 of 100 tasks).
RELEASE_BASE_COUNTS = {
    "EUROPEPMC_PMC": 5, "REPTILE_DATABASE": 5, "WATER_OFFICE": 5, "WATER_QUALITY_PORTAL": 5,
    "ARXIV": 4, "CENSUS_GOV": 4, "COMPTOX_CHEMEXPO": 4, "CFPB_REPORTS": 4,
    "CFPB_COMPLAINT_DATABASE": 3, "NVD": 3, "CDC_WONDER": 2, "KEGG_BRITE": 2, "KEGG_GENOME": 2,
    "NOAA_NCEI_CLIMATE_AT_A_GLANCE": 2,
}
PAPER_FAMILY_TASKS = {
    "environmental monitoring": 24, "regulatory resources": 22, "scholarly archives": 18,
    "life-science resources": 18, "official statistics": 12, "vulnerability databases": 6,
}


def test_release_counts_reproduce_the_papers_family_sizes():
    tasks = {f: 0 for f in FAMILIES}
    for domain, n in RELEASE_BASE_COUNTS.items():
        tasks[classify_domain(domain)[1]] += 2 * n
    assert tasks == PAPER_FAMILY_TASKS


def test_twelve_ecosystems_six_families():
    # Paper, abstract: "six source families and 12 public data ecosystems".
    t = taxonomy_table()
    assert set(t["domain"]) == set(RELEASE_BASE_COUNTS)
    assert t["ecosystem"].nunique() == 12
    assert set(t["family"]) == set(FAMILIES)
    assert TAXONOMY["KEGG_GENOME"][0] == TAXONOMY["KEGG_BRITE"][0] == "KEGG"


def test_unknown_domain_is_other_with_warning():
    with pytest.warns(UserWarning, match="unknown domain 'MARS_ROVER'"):
        assert classify_domain("MARS_ROVER") == ("other", "other")


@pytest.mark.parametrize("rows, expected", [(1, "1-2"), (2, "1-2"), (3, "3-5"), (5, "3-5"),
                                            (6, "6-10"), (10, "6-10"), (11, "11+"), (44, "11+")])
def test_cardinality_bins_of_appendix_k(rows, expected):
    assert cardinality_bin(rows) == expected
    assert expected in BINS
