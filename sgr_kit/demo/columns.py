"""Synthetic column generators for the demo benchmark, one catalogue per release domain.

Every value here is invented: identifiers follow the *shape* of each source's
identifiers (``2103.06490``, ``PMC8012345``, ``02HA003``, ``DTXSID2020004``,
``CVE-2023-41234`` ...) and the cell conventions of the public release (``/``
fractions such as ``2160/3531``, ``+``-joined paths such as ``api+buc``, ``;``
lists of identifiers, dates written ``2013/3/25``, ``2018-02-07``, ``2014-04`` or
``2023-12-08 11:41:18``, names holding a comma such as ``NORTHWIND CREDIT
HOLDINGS, INC.`` or ``Organics, Other``), but they are drawn from a seeded random
generator and refer to no real record.

A :class:`Column` couples a generator (``Random -> str``) with the column's name in
the task's ``normalization.schema`` (spelled as the release spells schemas:
``generalPUCID``, ``common_start_year``, ``accepted name``), the task's own
spelling of it in the output template and in a reference header (``label``,
``alt``), a prose note for the rubric, and a ``kind`` that tells the error model
(:mod:`sgr_kit.demo.errors`) how a plausible wrong value looks. The release's
rubrics carry no typed fields, so neither does the demo: the scorer reads every
column with the ``paper`` profile's rules for untyped columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Callable

__all__ = ["Column", "DOMAIN_COLUMNS", "KINDS", "COMPOSITE"]

#: Column kinds understood by the error model.
KINDS = ("id", "label", "integer", "decimal", "date", "year", "id_list", "fraction")

Gen = Callable[[Random], str]


@dataclass(frozen=True)
class Column:
    """One synthetic column: its schema name, spellings, value generator and rubric note.

    Attributes
    ----------
    name : str
        The name in ``rubric.normalization.schema``.
    kind : str
        One of :data:`KINDS`.
    gen : callable
        ``gen(rng) -> str``, a fresh plausible value.
    label : str
        The constraint variant's spelling in the output template and the reference's
        header (default: ``name``); normalised like the name (case, ``_``, spaces).
    alt : str
        The goal variant's spelling in its output template, sometimes a description
        (``earliest year with all six groups``); default ``label``.
    note : str
        The rubric's prose note on this column ("" for none).
    comma : bool
        Values may hold ``", "`` (placed neither first nor last in a schema, so a
        record written on one line is still read by its width).
    """

    name: str
    kind: str
    gen: Gen
    label: str = ""
    alt: str = ""
    note: str = ""
    comma: bool = False

    @property
    def spelling(self) -> str:
        """The constraint variant's spelling (``label`` or the name)."""
        return self.label or self.name

    @property
    def goal_spelling(self) -> str:
        """The goal variant's spelling (``alt``, else :attr:`spelling`)."""
        return self.alt or self.spelling


# --------------------------------------------------------------------------- generators


def _pattern(fmt: str, lo: int, hi: int) -> Gen:
    return lambda rng: fmt.format(rng.randint(lo, hi))


def _choice(values: tuple[str, ...]) -> Gen:
    return lambda rng: rng.choice(values)


def _int(lo: int, hi: int) -> Gen:
    return lambda rng: str(rng.randint(lo, hi))


def _dec(lo: float, hi: float, dp: int) -> Gen:
    return lambda rng: f"{lo + (hi - lo) * rng.random():.{dp}f}"


def _date(y0: int, y1: int) -> Gen:
    return lambda rng: f"{rng.randint(y0, y1)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _slash_date(y0: int, y1: int) -> Gen:
    return lambda rng: f"{rng.randint(y0, y1)}/{rng.randint(1, 12)}/{rng.randint(1, 28)}"


def _stamp(y0: int, y1: int) -> Gen:
    return lambda rng: (f"{rng.randint(y0, y1)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} "
                        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}")


def _month(y0: int, y1: int) -> Gen:
    return lambda rng: f"{rng.randint(y0, y1)}-{rng.randint(1, 12):02d}"


def _idlist(gen: Gen, lo: int, hi: int) -> Gen:
    def make(rng: Random) -> str:
        return ";".join(sorted({gen(rng) for _ in range(rng.randint(lo, hi))}))

    return make


def _fraction(lo: int, hi: int) -> Gen:
    def make(rng: Random) -> str:
        den = rng.randint(lo, hi)
        return f"{rng.randint(1, den - 1)}/{den}"

    return make


def _arxiv(rng: Random) -> str:
    return f"{rng.randint(18, 23):02d}{rng.randint(1, 12):02d}.{rng.randint(1, 19999):05d}"


def _cas(rng: Random) -> str:
    body = f"{rng.randint(50, 99999)}{rng.randint(10, 99)}"
    check = sum((i + 1) * int(d) for i, d in enumerate(reversed(body))) % 10
    return f"{body[:-2]}-{body[-2:]}-{check}"


def _station_wo(rng: Random) -> str:
    letters = "ABCDEFGHJKLMNOPQRS"
    return f"{rng.randint(1, 11):02d}{rng.choice(letters)}{rng.choice(letters)}{rng.randint(1, 99):03d}"


def _species(rng: Random) -> str:
    return f"{rng.choice(_GENERA)} {rng.choice(_EPITHETS)}"


def _specimen(rng: Random) -> str:
    return f"BMNH {rng.randint(1880, 1950)}.{rng.randint(1, 12)}.{rng.randint(1, 30)}.{rng.randint(1, 99)}"


def _org_path(rng: Random) -> str:
    return "+".join(sorted({"".join(rng.choice("abcdeghiklmnoprstuy") for _ in range(3)) for _ in range(2)}))


def _authors(rng: Random) -> str:
    return ", ".join(f"{rng.choice(_SURNAMES)} {rng.choice('ABCDEHJKLMRS')}" for _ in range(rng.randint(2, 3)))


_GENERA = ("Lycodon", "Oligodon", "Boiga", "Calotes", "Cnemaspis", "Hemidactylus", "Uropeltis",
           "Rhinophis", "Dendrelaphis", "Ahaetulla", "Trimeresurus", "Sphenomorphus", "Lygosoma")
_EPITHETS = ("travancoricus", "affinis", "beddomei", "ceylonensis", "fasciatus", "macrolepis",
             "nigrescens", "ornatus", "pulcher", "rubiginosus", "sublineatus", "wynaadensis", "elliotii")
_SURNAMES = ("Okafor", "Lindqvist", "Tanaka", "Moreau", "Petrova", "Haddad", "Nguyen", "Kowalski", "Silva")
_COUNTY_NAMES = ("Harris", "Travis", "Bexar", "Dallas", "Tarrant", "Collin", "Denton", "El Paso",
                 "Hidalgo", "Fort Bend", "Williamson", "Montgomery", "Cameron", "Brazoria", "Nueces")
_COMPANIES = ("NORTHWIND CREDIT HOLDINGS, INC.", "CONTOSO SERVICING, LLC", "FABRIKAM FINANCIAL CORP.",
              "LITWARE LENDING, INC.", "TAILSPIN MORTGAGE CO.", "WOODGROVE BANK, N.A.", "PROSEWARE CAPITAL")
_STATES = ("TX", "CA", "FL", "NY", "GA", "IL", "PA", "OH", "NC", "AZ", "WA", "MI")
_GROUPS = ("Inorganics, Major, Non-metals", "Microbiological", "Nutrient", "Organics, Other",
           "Organics, PCBs", "Physical")

# --------------------------------------------------------------------------- catalogues
# The first entry of each catalogue is the first column of every task of the domain;
# a task whose key has two columns also takes the second entry. Tasks take a seeded
# subset of the rest.

DOMAIN_COLUMNS: dict[str, tuple[Column, ...]] = {
    "ARXIV": (
        Column("arxiv_id", "id", _arxiv, label="arXiv ID", note="bare identifier without version suffix"),
        Column("term family", "label", _choice(("diffusion/score", "contrastive", "mixture-of-experts",
                                                "state-space", "retrieval-augmented")),
               alt="matched term family", note="the family whose terms first match the abstract"),
        Column("latest_version", "label", _choice(("v1", "v2", "v3", "v4", "v5", "v6")), label="latest version"),
        Column("primary_category", "label", _choice(("cs.LG", "cs.CV", "cs.CL", "stat.ML", "cs.AI", "eess.IV"))),
        Column("v1_date", "date", _slash_date(2013, 2023), label="v1 date", alt="date of the first version",
               note="as shown in the submission history, e.g. `2013/3/25`"),
        Column("version_count", "integer", _int(1, 9), label="versions"),
        Column("withdrawn", "label", _choice(("YES", "NO")), note="YES or NO in upper case"),
    ),
    "EUROPEPMC_PMC": (
        Column("PMCID", "id", _pattern("PMC{:07d}", 5000000, 9999999)),
        Column("PMID", "id", _pattern("{:08d}", 30000000, 38999999)),
        Column("authors", "label", _authors, alt="first authors", comma=True,
               note="up to three authors as listed, separated by a comma and a space"),
        Column("journal", "label", _choice(("MAbs", "Front Immunol", "Nat Commun", "PLoS One", "Sci Rep"))),
        Column("pub_year", "year", _int(2015, 2024), label="publication year"),
        Column("trial_phase", "label", _choice(("Phase 1", "Phase 2", "Phase 3", "Phase 1/2"))),
        Column("NCT_ids", "id_list", _idlist(_pattern("NCT0{:07d}", 3000000, 5999999), 1, 3),
               label="NCT IDs", note="registry identifiers joined by `;` in ascending order"),
        Column("cited_by", "integer", _int(0, 2400), alt="citation count"),
    ),
    "REPTILE_DATABASE": (
        Column("original name", "id", _species, note="binomial as originally described"),
        Column("accepted name", "label", _species, alt="currently accepted name",
               note="current binomial from the species page"),
        Column("author_year", "label", lambda rng: f"{rng.choice(('Boulenger', 'Gunther', 'Beddome', 'Wall'))}, "
                                                   f"{rng.randint(1858, 1935)}",
               label="author, year", comma=True, note="author and year separated by a comma"),
        Column("type_status", "label", _choice(("UNIQUE", "AMBIG")), note="UNIQUE or AMBIG"),
        Column("holotype", "id", _specimen),
        Column("synonym_count", "integer", _int(0, 14), label="synonyms"),
        Column("distribution", "label", _choice(("India", "Sri Lanka", "India/Sri Lanka", "Myanmar/Thailand"))),
    ),
    "WATER_OFFICE": (
        Column("Province", "label", _choice(("AB", "BC", "MB", "ON", "QC"))),
        Column("StationNumber", "id", _station_wo, label="station number"),
        Column("station_name", "label", _choice(("Bow River at Banff", "Fraser River at Hope", "Red River at Emerson",
                                                 "Ottawa River at Britannia", "Peace River at Taylor",
                                                 "Thames River at Byron")), label="station name"),
        Column("max_discharge", "decimal", _dec(1, 4000, 1), alt="maximum daily discharge (m3/s)",
               note="daily mean discharge in m3/s as published"),
        Column("max_date", "date", _date(1990, 2022), alt="date of the maximum"),
        Column("mean_discharge", "decimal", _dec(0.5, 900, 2)),
        Column("max_level", "decimal", _dec(0.2, 12, 3), note="water level in metres"),
        Column("record_years", "integer", _int(8, 110), label="years of record"),
        Column("regulated", "label", _choice(("Regulated", "Natural"))),
    ),
    "WATER_QUALITY_PORTAL": (
        Column("County", "label", _choice(("Hidalgo", "Cameron", "Harris", "Dallas", "Liberty", "Chambers"))),
        Column("MonitoringLocationIdentifier", "id", _pattern("TCEQMAIN-{:05d}", 10000, 19999),
               note="preserve the monitoring-location identifier exactly, for example `TCEQMAIN-10924`"),
        Column("HUC", "id", _pattern("120301{:02d}", 1, 9), note="preserve the HUC exactly as emitted"),
        Column("common_start_year", "year", _int(1969, 1995), alt="earliest year with all six groups",
               note="emit the maximum of the per-group start years"),
        Column("CharacteristicGroup", "label", _choice(_GROUPS), label="characteristic group", comma=True,
               note="group name exactly as in the portal, e.g. `Organics, Other`"),
        Column("Inorganics_start", "year", _int(1969, 1995), alt="Inorganics, Major, Non-metals start year"),
        Column("Organics_Other_start", "year", _int(1969, 1995), alt="Organics, Other start year"),
        Column("Nutrient_start", "year", _int(1969, 1995), alt="Nutrient start year"),
        Column("activity_date", "date", _date(2000, 2019), label="activity date"),
        Column("dissolved_oxygen", "decimal", _dec(2, 12, 2), label="DO mg/L"),
        Column("temperature", "decimal", _dec(5, 32, 2)),
        Column("specific_conductance", "decimal", _dec(150, 1500, 2)),
        Column("pH", "decimal", _dec(6.5, 8.8, 2)),
        Column("end_year", "year", _int(2015, 2019)),
        Column("station_count", "integer", _int(2, 6), label="stations"),
        Column("organization", "label", _choice(("USGS-TX", "TCEQMAIN", "USGS-OK"))),
        Column("media", "label", _choice(("Water", "Sediment"))),
        Column("result_count", "integer", _int(4, 4000), label="results"),
        Column("activity_type", "label", _choice(("Sample-Routine", "Field Msr/Obs"))),
    ),
    "NOAA_NCEI_CLIMATE_AT_A_GLANCE": (
        Column("region", "id", _choice(("Northeast", "Southeast", "Ohio Valley", "Upper Midwest", "South",
                                        "Northern Rockies and Plains", "Southwest", "Northwest", "West"))),
        Column("year", "year", _int(1995, 2023)),
        Column("anomaly", "decimal", _dec(-4, 6, 1), alt="anomaly (degF)", note="departure from the 1901-2000 mean"),
        Column("rank", "integer", _int(1, 129)),
        Column("mean_temp", "decimal", _dec(30, 80, 1), label="mean temperature"),
        Column("precip", "decimal", _dec(0.5, 9, 2), label="precipitation"),
        Column("month", "label", _choice(("January", "April", "July", "October"))),
        Column("warmest_year", "year", _int(1895, 2023), label="warmest year"),
        Column("trend", "decimal", _dec(-0.5, 1.2, 2), alt="trend per decade"),
        Column("record", "label", _choice(("WARMEST", "COOLEST", "NONE"))),
        Column("period", "label", _choice(("2014-04", "2019-07", "2021-10", "2023-01")), note="year-month"),
    ),
    "CFPB_REPORTS": (
        Column("report_month", "id", _month(2018, 2023), label="report month"),
        Column("product", "label", _choice(("Mortgage", "Credit reporting", "Debt collection", "Student loan"))),
        Column("complaints", "integer", _int(200, 30000)),
        Column("top_company", "label", _choice(_COMPANIES), alt="company with most complaints", comma=True,
               note="company name exactly as listed, including its legal suffix"),
        Column("share_pct", "decimal", _dec(0.1, 60, 1), label="share %"),
        Column("top_state", "label", _choice(_STATES), label="top state"),
        Column("timely_pct", "decimal", _dec(80, 100, 1)),
        Column("median_days", "integer", _int(5, 60)),
        Column("issue", "label", _choice(("Incorrect information", "Attempts to collect debt",
                                          "Trouble during payment"))),
        Column("report_id", "id", _pattern("cfpb-{:04d}", 1000, 9999)),
        Column("yoy_change_pct", "decimal", _dec(-30, 45, 1)),
        Column("sub_product", "label", _choice(("Conventional", "FHA", "VA", "Private"))),
        Column("released", "date", _date(2018, 2024)),
    ),
    "CFPB_COMPLAINT_DATABASE": (
        Column("month", "id", _month(2019, 2023)),
        Column("state", "id", _choice(_STATES)),
        Column("company", "label", _choice(_COMPANIES), comma=True,
               note="company name exactly as listed, including `, INC.` or `, LLC`"),
        Column("complaint_count", "integer", _int(20, 3000), label="complaints"),
        Column("complaint_id", "id", _pattern("{:07d}", 3000000, 7999999)),
        Column("product", "label", _choice(("Medical debt", "Credit card", "Checking account", "Mortgage"))),
        Column("timely_response", "label", _choice(("Yes", "No"))),
        Column("company_response", "label", _choice(("Closed with explanation", "Closed with monetary relief",
                                                     "In progress"))),
        Column("received", "date", _stamp(2019, 2023), alt="date received",
               note="timestamp as shown, e.g. `2023-12-08 11:41:18`"),
        Column("submitted_via", "label", _choice(("Web", "Phone", "Referral", "Postal mail"))),
        Column("share", "fraction", _fraction(40, 3000), note="the raw fraction `company complaints / all complaints`"),
        Column("tags", "label", _choice(("Older American", "Servicemember", "None"))),
        Column("zip3", "id", _pattern("{:03d}XX", 100, 999), label="ZIP3"),
    ),
    "COMPTOX_CHEMEXPO": (
        Column("generalPUCID", "id", _int(11, 160), alt="general category PUC ID"),
        Column("familyPUCID", "id", _int(161, 400), alt="family PUC ID"),
        Column("typePUCID", "id", _int(401, 900), alt="specific product type PUC ID"),
        Column("side", "label", _choice(("child", "aerosol")),
               note="emit the lower-case branch label exactly as determined in the source workflow"),
        Column("share", "fraction", _fraction(1000, 20000),
               note="canonical output uses the raw fraction `type Products / family Cumulative Products`"),
        Column("CuratedChemicals", "integer", _int(1, 2000), label="Curated Chemicals",
               note="emit the integer count from the selected type-level node"),
        Column("DTXSID", "id", _pattern("DTXSID{:07d}", 1000000, 9099999)),
        Column("CASRN", "id", _cas),
        Column("product_count", "integer", _int(1, 20000), label="Product Count"),
    ),
    "CENSUS_GOV": (
        Column("State", "label", _choice(("Texas", "North Carolina", "Georgia"))),
        Column("County", "label", lambda rng: f"{rng.choice(_COUNTY_NAMES)} County"),
        Column("GEOID", "id", _pattern("48{:03d}", 1, 507)),
        Column("NAME", "label", lambda rng: f"{rng.choice(_COUNTY_NAMES)} County, Texas", comma=True,
               label="geographic area name", note="geography name as shown, e.g. `Harris County, Texas`"),
        Column("population", "integer", _int(2000, 4800000)),
        Column("poverty_pct", "decimal", _dec(3, 35, 3), label="poverty rate"),
        Column("median_income", "integer", _int(28000, 125000), alt="median household income"),
        Column("households", "integer", _int(900, 1700000)),
        Column("uninsured_pct", "decimal", _dec(4, 32, 3)),
        Column("median_age", "decimal", _dec(24, 55, 1)),
        Column("table_id", "label", _choice(("B01003", "S1701", "S1901", "DP05"))),
        Column("vintage", "year", _int(2015, 2022)),
        Column("moe", "integer", _int(10, 9000), label="margin of error"),
        Column("metro_status", "label", _choice(("Metro", "Micro", "Rural"))),
        Column("bachelor_pct", "decimal", _dec(8, 60, 3)),
    ),
    "CDC_WONDER": (
        Column("group", "id", _choice(("I21", "I25", "C34", "J44", "E11", "G30", "I63", "K70", "N18", "X42"))),
        Column("year", "year", _int(2010, 2021)),
        Column("cause", "label", _choice(("Acute myocardial infarction", "Chronic ischaemic heart disease",
                                          "Lung cancer", "COPD", "Type 2 diabetes", "Alzheimer disease"))),
        Column("deaths", "integer", _int(100, 120000)),
        Column("population", "integer", _int(1000000, 330000000)),
        Column("crude_rate", "decimal", _dec(0.5, 180, 1), label="crude rate"),
        Column("infant_rate", "decimal", _dec(0.5, 12, 2), alt="infant mortality rate"),
        Column("age_group", "label", _choice(("45-54 years", "55-64 years", "65-74 years", "75-84 years"))),
        Column("sex", "label", _choice(("Female", "Male"))),
        Column("state", "label", _choice(("Texas", "Ohio", "Oregon", "Maine"))),
    ),
    "NVD": (
        Column("cve_id", "id", _pattern("CVE-2023-{:05d}", 20000, 49999), label="CVE ID"),
        Column("cvss_v3", "decimal", lambda rng: f"{rng.randint(20, 100) / 10:.1f}", label="CVSS v3 score"),
        Column("related_cves", "id_list", _idlist(_pattern("CVE-2022-{:05d}", 20000, 49999), 2, 3),
               note="related CVE ids joined by `;`"),
        Column("severity", "label", _choice(("LOW", "MEDIUM", "HIGH", "CRITICAL"))),
        Column("cwe_id", "id", _pattern("CWE-{:d}", 20, 918), label="CWE"),
        Column("published", "date", _date(2023, 2023)),
        Column("vendor", "label", _choice(("apache", "jenkins", "gitlab", "zyxel", "fortinet", "wordpress"))),
        Column("attack_vector", "label", _choice(("NETWORK", "LOCAL", "ADJACENT_NETWORK"))),
    ),
    "KEGG_BRITE": (
        Column("ko_id", "id", _pattern("K{:05d}", 1, 25999), label="KO"),
        Column("symbol", "label", lambda rng: rng.choice(("ALDH", "PFK", "GAPDH", "PGK", "ENO", "TPI", "HK"))
               + str(rng.randint(1, 9))),
        Column("brite_level_b", "label", _choice(("Carbohydrate metabolism", "Energy metabolism",
                                                  "Lipid metabolism", "Amino acid metabolism"))),
        Column("pathway_id", "id", _pattern("map{:05d}", 10, 1250)),
        Column("ec_number", "id", lambda rng: f"{rng.randint(1, 7)}.{rng.randint(1, 9)}.{rng.randint(1, 9)}."
               f"{rng.randint(1, 99)}", label="EC number"),
        Column("gene_count", "integer", _int(1, 9000), label="genes"),
        Column("module_ids", "id_list", _idlist(_pattern("M{:05d}", 1, 950), 1, 3), label="modules"),
        Column("orthology_class", "label", _choice(("enzyme", "transporter", "regulator"))),
        Column("path", "label", lambda rng: "+".join(rng.sample(("09100", "09101", "09102", "09180", "09183"), 2)),
               note="BRITE path of the entry, levels joined by `+`"),
    ),
    "KEGG_GENOME": (
        Column("org_pair", "id", _org_path, label="organism pair", note="the two organism codes joined by `+`"),
        Column("t_number", "id", _pattern("T0{:04d}", 1, 9999), label="T number"),
        Column("species", "label", _species),
        Column("gene_count", "integer", _int(400, 40000), label="genes"),
        Column("genome_size", "decimal", _dec(0.5, 3200, 2), alt="genome size (Mb)"),
        Column("gc_pct", "decimal", _dec(25, 72, 1), label="GC%"),
        Column("lineage", "label", _choice(("Bacteria/Proteobacteria", "Bacteria/Firmicutes",
                                            "Eukaryotes/Animals", "Archaea/Euryarchaeota"))),
        Column("release_year", "year", _int(2001, 2023)),
        Column("refseq", "id", _pattern("NC_0{:05d}", 10000, 99999), label="RefSeq"),
        Column("ortholog_ratio", "fraction", _fraction(200, 4000), alt="shared orthologs / genes"),
    ),
}

#: Domains whose first two catalogue columns can be written as one composite cell
#: ``<a>:<b>`` (the release's ``waterquality_002``: ``Hidalgo:TCEQMAIN-15808``).
COMPOSITE = {"WATER_QUALITY_PORTAL", "WATER_OFFICE", "CENSUS_GOV"}
