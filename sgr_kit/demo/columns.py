"""Synthetic column generators for the demo benchmark, one catalogue per release domain.

Every value here is invented: identifiers follow the *shape* of each source's
identifiers (``2103.06490``, ``PMC8012345``, ``02HA003``, ``DTXSID2020004``,
``CVE-2023-41234`` ...) but are drawn from a seeded random generator and do not
refer to real records.

A :class:`Column` couples a generator (``Random -> str``) with the rubric rule
the column gets (``type``, ``units``, ``uppercase``, ``aliases``) and a ``kind``
that tells the error model (:mod:`sgr_kit.demo.errors`) how a plausible wrong
value of this column looks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random
from typing import Callable, Mapping

__all__ = ["Column", "DOMAIN_COLUMNS", "KINDS"]

#: Column kinds understood by the error model.
KINDS = ("id", "label", "integer", "decimal", "date", "year", "id_list")

Gen = Callable[[Random], str]


@dataclass(frozen=True)
class Column:
    """One synthetic column: its name, value generator and rubric rule.

    Attributes
    ----------
    name : str
    kind : str
        One of :data:`KINDS`.
    gen : callable
        ``gen(rng) -> str``, a fresh plausible value.
    type : str
        Rubric field type (``string``, ``integer``, ``decimal``, ``id_list``).
    unit : str
        Unit of a decimal column (declared in the rubric; answers may append it).
    units : mapping
        Rubric ``units`` of the column (spelling -> conversion).
    uppercase : bool
        Rubric ``uppercase`` flag; the reference is written in upper case.
    aliases : mapping
        Rubric ``aliases`` (answer spelling -> reference spelling).
    """

    name: str
    kind: str
    gen: Gen
    type: str = "string"
    unit: str = ""
    units: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    uppercase: bool = False
    aliases: Mapping[str, str] = field(default_factory=dict)

    def rule(self) -> dict:
        """The rubric ``fields`` entry of this column (JSON-ready)."""
        out: dict = {"type": self.type}
        if self.units:
            out["units"] = {k: dict(v) for k, v in self.units.items()}
        if self.uppercase:
            out["uppercase"] = True
        if self.aliases:
            out["aliases"] = dict(self.aliases)
        return out


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


def _month(y0: int, y1: int) -> Gen:
    return lambda rng: f"{rng.randint(y0, y1)}-{rng.randint(1, 12):02d}"


def _idlist(gen: Gen, lo: int, hi: int) -> Gen:
    def make(rng: Random) -> str:
        return ";".join(sorted({gen(rng) for _ in range(rng.randint(lo, hi))}))

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


def _county(rng: Random) -> str:
    return f"{rng.choice(_COUNTY_NAMES)} County"


def _dec_unit(name: str, lo: float, hi: float, dp: int, unit: str, spellings: Mapping[str, Mapping[str, int]]) -> Column:
    return Column(name, "decimal", _dec(lo, hi, dp), type="decimal", unit=unit, units=spellings)


_GENERA = ("Lycodon", "Oligodon", "Boiga", "Calotes", "Cnemaspis", "Hemidactylus", "Uropeltis",
           "Rhinophis", "Dendrelaphis", "Ahaetulla", "Trimeresurus", "Sphenomorphus", "Lygosoma")
_EPITHETS = ("travancoricus", "affinis", "beddomei", "ceylonensis", "fasciatus", "macrolepis",
             "nigrescens", "ornatus", "pulcher", "rubiginosus", "sublineatus", "wynaadensis", "elliotii")
_COUNTY_NAMES = ("Harris", "Travis", "Bexar", "Dallas", "Tarrant", "Collin", "Denton", "El Paso",
                 "Hidalgo", "Fort Bend", "Williamson", "Montgomery", "Cameron", "Brazoria", "Nueces")
_COMPANIES = ("ACME SERVICING LLC", "NORTHWIND BANK N.A.", "CONTOSO CREDIT UNION", "FABRIKAM FINANCIAL",
              "LITWARE LENDING INC", "TAILSPIN MORTGAGE CO", "WOODGROVE BANK", "PROSEWARE CAPITAL")
_STATES = ("TX", "CA", "FL", "NY", "GA", "IL", "PA", "OH", "NC", "AZ", "WA", "MI")

_FLOW_UNITS = {"m3/s": {}, "m³/s": {}, "cms": {}}
_LEVEL_UNITS = {"m": {}, "cm": {"scale_den": 100}}
_MGL = {"mg/L": {}, "mg/l": {}, "ug/L": {"scale_den": 1000}}
_DEGC = {"deg C": {}, "°C": {}, "deg F": {"offset": 32, "scale_num": 5, "scale_den": 9}}
_USCM = {"uS/cm": {}, "µS/cm": {}, "mS/cm": {"scale_num": 1000}}
_DEGF_ANOM = {"degF": {}, "°F": {}, "degC": {"scale_num": 9, "scale_den": 5}}
_PCT = {"%": {}, "percent": {}}

# --------------------------------------------------------------------------- catalogues
# The first entry of each catalogue is the row key (two entries when the second
# name is listed in _COMPOSITE); tasks take the key and a seeded subset of the rest.

DOMAIN_COLUMNS: dict[str, tuple[Column, ...]] = {
    "ARXIV": (
        Column("arxiv_id", "id", _arxiv),
        Column("latest_version", "label", _choice(("v1", "v2", "v3", "v4", "v5", "v6"))),
        Column("primary_category", "label", _choice(("cs.LG", "cs.CV", "cs.CL", "stat.ML", "cs.AI", "eess.IV"))),
        Column("v1_date", "date", _date(2018, 2023)),
        Column("replacement_id", "id", _arxiv),
        Column("version_count", "integer", _int(1, 9), type="integer"),
        Column("withdrawn", "label", _choice(("YES", "NO")), uppercase=True),
    ),
    "EUROPEPMC_PMC": (
        Column("pmcid", "id", _pattern("PMC{:07d}", 5000000, 9999999)),
        Column("pmid", "id", _pattern("{:08d}", 30000000, 38999999)),
        Column("doi", "id", _pattern("10.3389/fimmu.2023.{:07d}", 1000000, 1299999)),
        Column("journal", "label", _choice(("MAbs", "Front Immunol", "Nat Commun", "PLoS One", "Sci Rep", "Cell Rep"))),
        Column("pub_year", "year", _int(2015, 2024), type="integer"),
        Column("trial_phase", "label", _choice(("Phase 1", "Phase 2", "Phase 3", "Phase 1/2")),
               aliases={"Ph1": "Phase 1", "Ph2": "Phase 2", "Ph3": "Phase 3"}),
        Column("nct_ids", "id_list", _idlist(_pattern("NCT0{:07d}", 3000000, 5999999), 1, 3), type="id_list"),
        Column("status_2024", "label", _choice(("A", "R", "N")), uppercase=True),
    ),
    "REPTILE_DATABASE": (
        Column("original_name", "id", _species),
        Column("current_name", "label", _species),
        Column("author", "label", _choice(("Boulenger", "Gunther", "Beddome", "Annandale", "Smith", "Wall"))),
        Column("year", "year", _int(1858, 1935), type="integer"),
        Column("type_status", "label", _choice(("UNIQUE", "AMBIG")), uppercase=True),
        Column("holotype", "id", _specimen),
        Column("synonym_count", "integer", _int(0, 14), type="integer"),
    ),
    "WATER_OFFICE": (
        Column("station_id", "id", _station_wo),
        Column("station_name", "label", _choice(("Bow River at Banff", "Fraser River at Hope", "Red River at Emerson",
                                                 "Ottawa River at Britannia", "Peace River at Taylor",
                                                 "Saint John River at Fort Kent", "Thames River at Byron"))),
        Column("province", "label", _choice(("AB", "BC", "MB", "ON", "QC", "NB", "SK")), uppercase=True),
        _dec_unit("max_discharge_m3s", 1, 4000, 1, "m3/s", _FLOW_UNITS),
        Column("max_date", "date", _date(1990, 2022)),
        _dec_unit("mean_discharge_m3s", 0.5, 900, 2, "m3/s", _FLOW_UNITS),
        _dec_unit("max_level_m", 0.2, 12, 3, "m", _LEVEL_UNITS),
        Column("record_years", "integer", _int(8, 110), type="integer"),
        Column("regulated", "label", _choice(("Y", "N")), uppercase=True, aliases={"Yes": "Y", "No": "N"}),
    ),
    "WATER_QUALITY_PORTAL": (
        Column("activity_id", "id", _pattern("nwistx.01.0{:08d}", 10000000, 19999999)),
        Column("station_id", "id", _pattern("USGS-080{:05d}", 50000, 69999)),
        Column("activity_date", "date", _date(2000, 2019)),
        Column("quarter", "label", _choice(("Q1", "Q2", "Q3", "Q4")), uppercase=True),
        _dec_unit("dissolved_oxygen_mg_L", 2, 12, 2, "mg/L", _MGL),
        _dec_unit("temperature_deg_C", 5, 32, 2, "deg C", _DEGC),
        _dec_unit("specific_conductance_uS_cm", 150, 1500, 2, "uS/cm", _USCM),
        Column("pH", "decimal", _dec(6.5, 8.8, 2), type="decimal", units={"std units": {}, "SU": {}}),
        Column("start_year", "year", _int(2000, 2014), type="integer"),
        Column("end_year", "year", _int(2015, 2019), type="integer"),
        Column("cohort_station_count", "integer", _int(2, 6), type="integer"),
        Column("cohort_station_ids", "id_list", _idlist(_pattern("USGS-080{:05d}", 50000, 69999), 2, 4),
               type="id_list"),
        Column("eligible_activity_count", "integer", _int(5, 80), type="integer"),
        Column("organization", "label", _choice(("USGS-TX", "TCEQMAIN", "USGS-OK"))),
        Column("huc8", "id", _pattern("120301{:02d}", 1, 9)),
        Column("media", "label", _choice(("Water", "Sediment"))),
        Column("activity_type", "label", _choice(("Sample-Routine", "Field Msr/Obs"))),
        Column("result_count", "integer", _int(4, 40), type="integer"),
    ),
    "NOAA_NCEI_CLIMATE_AT_A_GLANCE": (
        Column("region", "id", _choice(("Northeast", "Southeast", "Ohio Valley", "Upper Midwest", "South",
                                        "Northern Rockies and Plains", "Southwest", "Northwest", "West"))),
        Column("year", "year", _int(1995, 2023), type="integer"),
        _dec_unit("anomaly_degF", -4, 6, 1, "degF", _DEGF_ANOM),
        Column("rank", "integer", _int(1, 129), type="integer"),
        _dec_unit("mean_temp_degF", 30, 80, 1, "degF", {"degF": {}, "°F": {}}),
        _dec_unit("precip_in", 0.5, 9, 2, "in", {"in": {}, "inches": {}}),
        Column("month", "label", _choice(("January", "April", "July", "October"))),
        Column("warmest_year", "year", _int(1895, 2023), type="integer"),
        Column("trend_per_decade", "decimal", _dec(-0.5, 1.2, 2), type="decimal"),
        Column("record", "label", _choice(("WARMEST", "COOLEST", "NONE")), uppercase=True),
    ),
    "CFPB_REPORTS": (
        Column("report_month", "id", _month(2018, 2023)),
        Column("product", "label", _choice(("Mortgage", "Credit reporting", "Debt collection", "Student loan"))),
        Column("complaints", "integer", _int(200, 30000), type="integer"),
        _dec_unit("share_pct", 0.1, 60, 1, "%", _PCT),
        Column("top_company", "label", _choice(_COMPANIES)),
        Column("top_state", "label", _choice(_STATES), uppercase=True),
        Column("timely_pct", "decimal", _dec(80, 100, 1), type="decimal", units=_PCT),
        Column("median_days", "integer", _int(5, 60), type="integer"),
        Column("issue", "label", _choice(("Incorrect information", "Attempts to collect debt", "Trouble during payment"))),
        Column("report_id", "id", _pattern("cfpb-{:04d}", 1000, 9999)),
        Column("yoy_change_pct", "decimal", _dec(-30, 45, 1), type="decimal"),
        Column("sub_product", "label", _choice(("Conventional", "FHA", "VA", "Private"))),
    ),
    "CFPB_COMPLAINT_DATABASE": (
        Column("month", "id", _month(2019, 2023)),
        Column("state", "id", _choice(_STATES), uppercase=True),
        Column("company", "label", _choice(_COMPANIES)),
        Column("complaint_count", "integer", _int(20, 3000), type="integer"),
        Column("complaint_id", "id", _pattern("{:07d}", 3000000, 7999999)),
        Column("product", "label", _choice(("Medical debt", "Credit card", "Checking account", "Mortgage"))),
        Column("timely_response", "label", _choice(("Yes", "No")), aliases={"Y": "Yes", "N": "No"}),
        Column("company_response", "label", _choice(("Closed with explanation", "Closed with monetary relief",
                                                     "In progress"))),
        Column("consumer_disputed", "label", _choice(("Yes", "No", "N/A"))),
        Column("submitted_via", "label", _choice(("Web", "Phone", "Referral", "Postal mail"))),
        Column("share_pct", "decimal", _dec(0.1, 40, 2), type="decimal", units=_PCT),
        Column("tags", "label", _choice(("Older American", "Servicemember", "None"))),
        Column("zip3", "id", _pattern("{:03d}XX", 100, 999)),
    ),
    "COMPTOX_CHEMEXPO": (
        Column("dtxsid", "id", _pattern("DTXSID{:07d}", 1000000, 9099999)),
        Column("casrn", "id", _cas),
        Column("chemical_name", "label", _choice(("Triclosan", "Bisphenol A", "Benzophenone-3", "Methylparaben",
                                                  "Diethyl phthalate", "Octocrylene", "Propylparaben"))),
        Column("product_category", "label", _choice(("personal care", "cleaning", "home maintenance",
                                                     "arts and crafts", "automotive"))),
        Column("product_count", "integer", _int(1, 900), type="integer"),
        Column("max_weight_fraction", "decimal", _dec(0.0001, 0.5, 4), type="decimal"),
        Column("function", "label", _choice(("preservative", "UV absorber", "plasticizer", "fragrance"))),
        Column("document_count", "integer", _int(1, 120), type="integer"),
        Column("reported_year", "year", _int(2012, 2022), type="integer"),
    ),
    "CENSUS_GOV": (
        Column("fips", "id", _pattern("48{:03d}", 1, 507)),
        Column("county", "label", _county),
        Column("population", "integer", _int(2000, 4800000), type="integer"),
        _dec_unit("poverty_pct", 3, 35, 1, "%", _PCT),
        Column("median_income", "integer", _int(28000, 125000), type="integer"),
        Column("households", "integer", _int(900, 1700000), type="integer"),
        _dec_unit("uninsured_pct", 4, 32, 1, "%", _PCT),
        Column("median_age", "decimal", _dec(24, 55, 1), type="decimal"),
        Column("table_id", "label", _choice(("B01003", "S1701", "S1901", "DP05")), uppercase=True),
        Column("vintage", "year", _int(2015, 2022), type="integer"),
        Column("moe", "integer", _int(10, 9000), type="integer"),
        Column("metro_status", "label", _choice(("Metro", "Micro", "Rural"))),
        _dec_unit("bachelor_pct", 8, 60, 1, "%", _PCT),
        Column("rank_in_state", "integer", _int(1, 254), type="integer"),
    ),
    "CDC_WONDER": (
        Column("icd10_code", "id", _choice(("I21", "I25", "C34", "J44", "E11", "G30", "I63", "K70",
                                            "N18", "X42", "C50", "I10"))),
        Column("year", "year", _int(2010, 2021), type="integer"),
        Column("cause", "label", _choice(("Acute myocardial infarction", "Chronic ischaemic heart disease",
                                          "Lung cancer", "COPD", "Type 2 diabetes", "Alzheimer disease"))),
        Column("deaths", "integer", _int(100, 120000), type="integer"),
        Column("population", "integer", _int(1000000, 330000000), type="integer"),
        Column("crude_rate", "decimal", _dec(0.5, 180, 1), type="decimal"),
        Column("age_adjusted_rate", "decimal", _dec(0.5, 180, 1), type="decimal"),
        Column("age_group", "label", _choice(("45-54 years", "55-64 years", "65-74 years", "75-84 years"))),
        Column("sex", "label", _choice(("Female", "Male")), aliases={"F": "Female", "M": "Male"}),
        Column("state", "label", _choice(("Texas", "Ohio", "Oregon", "Maine"))),
    ),
    "NVD": (
        Column("cve_id", "id", _pattern("CVE-2023-{:05d}", 20000, 49999), uppercase=True),
        Column("cvss_v3", "decimal", lambda rng: f"{rng.randint(20, 100) / 10:.1f}", type="decimal"),
        Column("severity", "label", _choice(("LOW", "MEDIUM", "HIGH", "CRITICAL")), uppercase=True),
        Column("cwe_id", "id", _pattern("CWE-{:d}", 20, 918)),
        Column("published", "date", _date(2023, 2023)),
        Column("vendor", "label", _choice(("apache", "jenkins", "gitlab", "zyxel", "fortinet", "wordpress"))),
        Column("attack_vector", "label", _choice(("NETWORK", "LOCAL", "ADJACENT_NETWORK")), uppercase=True),
        Column("kev_listed", "label", _choice(("YES", "NO")), uppercase=True),
    ),
    "KEGG_BRITE": (
        Column("ko_id", "id", _pattern("K{:05d}", 1, 25999)),
        Column("symbol", "label", lambda rng: rng.choice(("ALDH", "PFK", "GAPDH", "PGK", "ENO", "TPI", "HK"))
               + str(rng.randint(1, 9))),
        Column("brite_level_b", "label", _choice(("Carbohydrate metabolism", "Energy metabolism",
                                                  "Lipid metabolism", "Amino acid metabolism"))),
        Column("pathway_id", "id", _pattern("map{:05d}", 10, 1250)),
        Column("ec_number", "id", lambda rng: f"{rng.randint(1, 7)}.{rng.randint(1, 9)}.{rng.randint(1, 9)}."
               f"{rng.randint(1, 99)}"),
        Column("gene_count", "integer", _int(1, 9000), type="integer"),
        Column("module_ids", "id_list", _idlist(_pattern("M{:05d}", 1, 950), 1, 3), type="id_list"),
        Column("orthology_class", "label", _choice(("enzyme", "transporter", "regulator"))),
    ),
    "KEGG_GENOME": (
        Column("org_code", "id", lambda rng: "".join(rng.choice("abcdefghiklmnoprstuvy") for _ in range(3))),
        Column("t_number", "id", _pattern("T0{:04d}", 1, 9999)),
        Column("species", "label", _species),
        Column("gene_count", "integer", _int(400, 40000), type="integer"),
        _dec_unit("genome_size_mb", 0.5, 3200, 2, "Mb", {"Mb": {}, "Mbp": {}, "kb": {"scale_den": 1000}}),
        Column("gc_pct", "decimal", _dec(25, 72, 1), type="decimal", units=_PCT),
        Column("lineage", "label", _choice(("Bacteria; Proteobacteria", "Bacteria; Firmicutes",
                                            "Eukaryotes; Animals", "Archaea; Euryarchaeota"))),
        Column("release_year", "year", _int(2001, 2023), type="integer"),
        Column("refseq", "id", _pattern("NC_0{:05d}", 10000, 99999)),
    ),
}

#: Domains whose row key combines the first two catalogue columns.
COMPOSITE_KEYS = {"CFPB_COMPLAINT_DATABASE", "CDC_WONDER", "NOAA_NCEI_CLIMATE_AT_A_GLANCE"}
