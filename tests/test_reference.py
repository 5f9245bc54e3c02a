"""Tests for sgr_kit.reference.tables: the paper's published numbers as tidy data.

Known answers come from the paper (``../shared/paper/sgr-bench-paper.txt``); the
cross-checks that read the paper itself skip when it is absent.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from sgr_kit import reference
from sgr_kit.errors import SgrKitError
from sgr_kit.reference import tables
from sgr_kit.taxonomy import BINS, FAMILIES

PAPER = Path(__file__).resolve().parents[1].parent / "shared" / "paper" / "sgr-bench-paper.txt"

# Row counts, counted from the paper by hand:
ROWS = {
    "table1": 32,  # Table 1: 8 benchmarks x 4 attributes (focus, expert sites, state-gated, output)
    "table2": 77,  # Table 2: 11 systems x (2 variants x 3 metrics + Overall Item-F1)
    "table3": 33,  # Table 3: 11 systems x 3 metrics
    "table4": 72,  # Table 4: (8 models + Total row) x (6 error types + Fail + Corr.)
    "table5": 35,  # Table 5: 5 families x (6 error types + Total column); no Total row
    "table6": 28,  # Table 6: (6 error types + Correct) x (n, Item-F1, Row-F1, Gap)
    "family_item_f1": 5,  # Finding 3 gives five family means (none for vulnerability databases)
    "cardinality": 16,  # Appendix K: 4 bins x (tasks, share, Item-F1, Row-F1), two of them unpublished
    "dataset_stats": 23,  # Section 3.3: 3 benchmark counts + 6 families x (tasks, share) + 2 variants
    #                       + min, max, mean, median rows + tasks and share with at most 7 rows
    "text_numbers": 149,  # one row per number per printed place, by source:
    # Abstract 10; section 1: paragraph 4 3, paragraph 5 8, contributions 6; section 3 intro 1,
    # 3.2 1, Figure 1 caption 2, 3.2.1 1, 3.2.2 2, 3.2.4 1; 3.3 1; 4.1 2; 4.2: Finding 1 12,
    # Figure 2 caption 3, Finding 2 6, Finding 3 1, closing paragraph 4; section 5 4;
    # appendices B 1, C 7, E 11, F 20, G 4, H 13, I 8, J 7, K 7; Table 4 caption 2, Table 5 caption 1.
}
TEXT_KINDS = {"repeat": 33, "derived": 87, "standalone": 29}

COLUMNS = {
    "table1": ["benchmark", "attribute", "value", "source"],
    "table2": ["system", "group", "variant", "metric", "value", "decimals", "source"],
    "table3": ["position", "system", "metric", "value", "decimals", "source"],
    "table4": ["label", "system", "error_type", "role", "value", "decimals", "source"],
    "table5": ["label", "family", "error_type", "role", "value", "decimals", "source"],
    "table6": ["label", "error_type", "metric", "value", "decimals", "source"],
    "family_item_f1": ["label", "family", "value", "decimals", "source"],
    "cardinality": ["bin", "label", "quantity", "value", "decimals", "source"],
    "dataset_stats": ["statistic", "subject", "value", "decimals", "unit", "source"],
    "text_numbers": ["id", "value", "decimals", "unit", "kind", "claim", "source", "quote"],
}


def printed(frame: pd.DataFrame) -> list[str]:
    """Values as the paper prints them (``decimals`` digits after the point)."""
    return [f"{v:.{d}f}" for v, d in zip(frame["value"], frame["decimals"])]


@pytest.fixture
def paper() -> str:
    if not PAPER.is_file():
        pytest.skip("paper text absent: expected ../shared/paper/sgr-bench-paper.txt beside the checkout")
    return PAPER.read_text(encoding="utf-8")


def table_block(paper: str, caption: str) -> dict[str, list[str]]:
    """Rows of the tab-separated table printed after ``caption``: first cell -> other cells."""
    lines = paper.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(caption))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if not line.strip():
            if rows:
                break
            continue
        cells = line.split("\t")
        if len(cells) > 1 and cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))


# --- shape ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", tables.NAMES)
def test_row_counts_and_columns(name):
    frame = reference.load(name)
    assert len(frame) == ROWS[name]
    assert list(frame.columns) == COLUMNS[name]
    assert frame["source"].str.len().gt(0).all()


def test_named_loaders_match_load():
    loaders = {"table1": reference.table1, "table2": reference.table2, "table3": reference.table3,
               "table4": reference.table4, "table5": reference.table5, "table6": reference.table6,
               "family_item_f1": reference.family_item_f1, "cardinality": reference.cardinality,
               "dataset_stats": reference.dataset_stats, "text_numbers": reference.text_numbers}
    assert set(loaders) == set(tables.NAMES)
    for name, loader in loaders.items():
        pd.testing.assert_frame_equal(loader(), reference.load(name))


def test_each_call_returns_a_fresh_frame():
    first = reference.table2()
    first.loc[:, "value"] = -1.0
    assert reference.table2()["value"].min() > 0


def test_value_dtypes():
    t2 = reference.table2()
    assert t2["value"].dtype == float and str(t2["decimals"].dtype) == "Int64"
    assert reference.table3()["position"].tolist()[:3] == [1, 1, 1]
    assert reference.table1()["value"].map(type).eq(str).all()


def test_text_number_kinds():
    # Counted when transcribing: 33 repeats, 87 derived, 29 standalone (see data/reference/README.md).
    t = reference.text_numbers()
    assert t["kind"].value_counts().to_dict() == TEXT_KINDS
    assert t["id"].is_unique


def test_unpublished_values_are_empty_not_invented():
    # Appendix K: "Aggregate results are not reported for the 11+ row bin."
    c = reference.cardinality().set_index(["bin", "quantity"])
    assert c.loc[("11+", "item_f1"), "value"] != c.loc[("11+", "item_f1"), "value"]  # NaN
    assert pd.isna(c.loc[("11+", "row_f1"), "decimals"])
    assert c["value"].isna().sum() == 2
    assert "vulnerability databases" not in set(reference.family_item_f1()["family"])


# --- names and constants -----------------------------------------------------------------


def test_system_constants_follow_table2():
    t2 = reference.table2()
    assert tuple(dict.fromkeys(t2["system"])) == reference.SYSTEMS
    assert reference.SYSTEMS == reference.CLI_SYSTEMS + reference.COMMERCIAL_SYSTEMS
    assert len(reference.CLI_SYSTEMS) == 8 and len(reference.COMMERCIAL_SYSTEMS) == 3
    assert set(t2.loc[t2["group"] == "cli", "system"]) == set(reference.CLI_SYSTEMS)


def test_label_maps():
    assert sorted(reference.SYSTEM_LABELS.values()) == sorted(reference.CLI_SYSTEMS)
    assert reference.SYSTEM_LABELS["DS V4 Pro"] == "DeepSeek V4 Pro"
    assert tuple(reference.ERROR_LABELS) == reference.ERROR_TYPES
    assert reference.ERROR_TYPES[0] == "scope_drift" and len(reference.ERROR_TYPES) == 6
    assert set(reference.FAMILY_LABELS.values()) <= set(FAMILIES)
    t4 = reference.table4()
    assert set(t4.loc[t4["label"] != "Total", "system"]) == set(reference.CLI_SYSTEMS)
    assert set(reference.table5()["family"]) == set(FAMILIES) - {"vulnerability databases"}
    assert tuple(dict.fromkeys(reference.cardinality()["bin"])) == BINS


def test_data_dir_holds_every_file():
    d = reference.data_dir()
    assert d.parts[-2:] == ("data", "reference")
    assert (d / "README.md").is_file()
    for spec in tables._SPECS.values():
        assert (d / spec.file).is_file()


# --- spot checks against the paper (values typed from the PDF text) ------------------------


def test_spot_values():
    t2 = reference.table2().set_index(["system", "variant", "metric"])["value"]
    assert t2[("Kimi K2.5", "overall", "item_f1")] == 47.39  # Table 2
    assert t2[("Google Search AI Mode", "constraint", "row_f1")] == 1.40  # Table 2
    t3 = reference.table3()
    assert t3.query("position == 6")["system"].unique().tolist() == ["OpenAI Deep Research"]  # Table 3
    t4 = reference.table4().set_index(["label", "error_type"])["value"]
    assert t4[("Seed-2.0", "scope_drift")] == 15 and t4[("Total", "correct")] == 20  # Table 4
    t6 = reference.table6().set_index(["error_type", "metric"])["value"]
    assert t6[("criterion_mismatch", "gap")] == 45.2  # Table 6
    stats = reference.dataset_stats().set_index(["statistic", "subject"])["value"]
    assert stats[("mean_rows", "reference answers")] == 6.42  # Section 3.3
    assert stats[("tasks", "environmental monitoring")] == 24


def test_decimals_record_trailing_zeros():
    t2 = reference.table2().set_index(["system", "variant", "metric"])
    row = t2.loc[("DeepSeek V4 Pro", "constraint", "poa")]  # printed "80.00"
    assert (row["value"], row["decimals"]) == (80.0, 2)


# --- the transcription against the paper's own text ---------------------------------------


def test_table2_matches_the_paper(paper):
    block = table_block(paper, "Table 2:")
    t2 = reference.table2()
    order = [("constraint", "row_f1"), ("constraint", "item_f1"), ("constraint", "poa"),
             ("goal", "row_f1"), ("goal", "item_f1"), ("goal", "poa"), ("overall", "item_f1")]
    for system in reference.SYSTEMS:
        mine = t2[t2["system"] == system].set_index(["variant", "metric"])
        ours = [f"{mine.loc[k, 'value']:.{mine.loc[k, 'decimals']}f}" for k in order]
        assert ours == block[system], system


def test_table3_matches_the_paper(paper):
    block = table_block(paper, "Table 3:")
    t3 = reference.table3()
    systems = [s for s in block if s != "Model"]
    assert list(dict.fromkeys(t3.sort_values("position")["system"])) == systems
    for system in systems:
        mine = t3[t3["system"] == system].set_index("metric").loc[["item_f1", "row_f1", "poa"]]
        assert printed(mine) == block[system], system


@pytest.mark.parametrize("name, caption, key, columns", [
    ("table4", "Table 4:", "label", [*reference.ERROR_TYPES, "fail", "correct"]),
    ("table5", "Table 5:", "label", [*reference.ERROR_TYPES, "total"]),
    ("table6", "Table 6:", "label", ["n", "item_f1", "row_f1", "gap"]),
])
def test_count_tables_match_the_paper(paper, name, caption, key, columns):
    block = table_block(paper, caption)
    frame = reference.load(name)
    by = "metric" if name == "table6" else "error_type"
    labels = list(dict.fromkeys(frame[key]))
    assert labels == [k for k in block if k in labels]
    for label in labels:
        mine = frame[frame[key] == label].set_index(by).loc[columns]
        assert printed(mine) == block[label], label
    assert len(labels) == len([k for k in block if k not in ("Model", "Source Family", "Error Type", "")])


def test_table1_matches_the_paper(paper):
    block = table_block(paper, "Table 1:")
    marks = {"yes": "✓", "no": "✗"}
    t1 = reference.table1()
    for benchmark, part in t1.groupby("benchmark", sort=False):
        values = part.set_index("attribute")["value"]
        row = [values["primary_focus"], marks[values["expert_data_retrieval_sites"]],
               marks[values["state_gated_evidence"]], values["output_target"]]
        assert row == block[benchmark], benchmark


def test_text_quotes_are_verbatim_and_print_the_value(paper):
    text = normalized(paper)
    words = {"0": ("zero", "0%"), "2": ("two", "second"), "3": ("three",), "4": ("four",), "5": ("five",),
             "6": ("six", "sixth"), "8": ("eight",), "2311": ("2,311",)}
    for row in reference.text_numbers().itertuples():
        assert row.quote in text, row.id
        value = f"{row.value:.{row.decimals}f}"
        assert value in row.quote or any(w in row.quote for w in words.get(value, ())), row.id


def test_text_sources_name_where_the_quote_is(paper):
    # Each quote must occur after the heading its source names (a coarse location check).
    text = normalized(paper)
    headings = {"Abstract": "Abstract", "Section 1": "1 Introduction", "Section 3": "3 SGR-Bench",
                "Section 4.1": "4.1 Experimental Setup", "Section 4.2": "4.2 Main Results",
                "Section 5": "5 Conclusion", "Table 4 caption": "Appendix H", "Table 5 caption": "Appendix I"}
    for row in reference.text_numbers().itertuples():
        head = row.source.split(",")[0]
        if head.startswith("Appendix"):
            head_text = head + " "
        elif head.startswith("Section 3."):
            head_text = head.removeprefix("Section ") + " "
        else:
            head_text = headings[head]
        assert text.index(head_text) < text.index(row.quote), row.id


def test_family_means_cardinality_and_stats_are_in_their_paragraphs(paper):
    text = normalized(paper)
    finding3 = text[text.index("Finding 3:"):text.index("CLI-based systems also outperform")]
    for row, value in zip(reference.family_item_f1().itertuples(), printed(reference.family_item_f1())):
        assert f"{row.label} " in finding3 and f"{value}%" in finding3, row.family
    appendix_k = text[text.index("Across the 100-task benchmark"):]
    card = reference.cardinality().dropna(subset=["value"])
    for row, value in zip(card.itertuples(), printed(card)):
        assert value in appendix_k and row.label in appendix_k, (row.bin, row.quantity)
    section = text[text.index("3.3 Dataset Statistics"):text.index("3.4 Evaluation")]
    words = {"6": "six"}
    for row, value in zip(reference.dataset_stats().itertuples(), printed(reference.dataset_stats())):
        assert value in section or words.get(value, "?") in section, (row.statistic, row.subject)


# --- validation ----------------------------------------------------------------------------


@pytest.fixture
def copy_dir(tmp_path) -> Path:
    """A writable copy of data/reference."""
    target = tmp_path / "reference"
    shutil.copytree(reference.data_dir(), target)
    return target


def rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_unknown_name():
    with pytest.raises(SgrKitError, match="reference table 'table9': expected one of table1, table2"):
        reference.load("table9")


def test_missing_file_says_reinstall(tmp_path):
    with pytest.raises(SgrKitError, match=r"table2_main.csv not found: .*ship with the package"):
        reference.load("table2", directory=tmp_path)


def test_copy_loads_like_the_original(copy_dir):
    pd.testing.assert_frame_equal(reference.load("table4", directory=copy_dir), reference.table4())


@pytest.mark.parametrize("file, old, new, message", [
    ("table2_main.csv", "GPT-5.5,cli,constraint,row_f1,45.48,2", "GPT-5.5,cli,constraint,row_f1,45.4x,2",
     r"table2_main.csv:2: expected a number in column 'value', found '45.4x'"),
    ("table2_main.csv", "GPT-5.5,cli,constraint,item_f1,68.22,2", "GPT-5.5,cli,constraint,item_f1,68.2,2",
     r"table2_main.csv:3: column 'decimals' must give the printed decimals of '68.2' \(1\), found '2'"),
    ("table2_main.csv", "GPT-5.5,cli,constraint,poa", "GPT-5,cli,constraint,poa",
     r"table2_main.csv:4: column 'system' must be one of .*found 'GPT-5'"),
    ("table2_main.csv", "GPT-5.5,cli,goal,row_f1", "GPT-5.5,commercial,goal,row_f1",
     r"table2_main.csv:5: system 'GPT-5.5' goes with group 'cli', found 'commercial'"),
    ("table2_main.csv", "GPT-5.5,cli,goal,item_f1,64.15,2", "GPT-5.5,cli,goal,item_f1,,",
     r"table2_main.csv:6: expected a number in column 'value', found ''"),
    ("table4_errors_by_model.csv", "Seed-2.0,Seed-2.0 Pro", "Seed-2.0,Seed-2.0",
     r"table4_errors_by_model.csv:2: column 'system' must be one of"),
    ("table5_errors_by_family.csv", "Scholarly,scholarly archives", "Scholarly,official statistics",
     r"table5_errors_by_family.csv:2: label 'Scholarly' goes with family 'scholarly archives'"),
    ("table3_per_model.csv", "1,GPT-5.5,item_f1", "first,GPT-5.5,item_f1",
     r"table3_per_model.csv:2: expected a whole number in column 'position', found 'first'"),
    ("text_numbers.csv", "abstract.families,", "abstract.tasks,",
     r"text_numbers.csv: ids must be unique, found 'abstract.tasks' twice"),
    ("text_numbers.csv", "abstract.tasks,100,0,count,repeat", "abstract.tasks,100,0,count,copied",
     r"text_numbers.csv:2: column 'kind' must be one of 'repeat', 'derived', 'standalone', found 'copied'"),
    ("cardinality.csv", "bin,label,quantity", "bin,name,quantity",
     r"cardinality.csv:1: expected columns bin, label, quantity, value, decimals, source, found bin, name"),
])
def test_bad_files_are_refused_with_file_and_line(copy_dir, file, old, new, message):
    rewrite(copy_dir / file, old, new)
    name = next(k for k, spec in tables._SPECS.items() if spec.file == file)
    with pytest.raises(SgrKitError, match=message):
        reference.load(name, directory=copy_dir)


def test_empty_value_only_where_unpublished(copy_dir):
    rewrite(copy_dir / "cardinality.csv", "1-2,1–2 rows,tasks,26,0", "1-2,1–2 rows,tasks,,")
    assert reference.load("cardinality", directory=copy_dir)["value"].isna().sum() == 3
    rewrite(copy_dir / "cardinality.csv", "3-5,3–5 rows,tasks,38,0", "3-5,3–5 rows,tasks,,0")
    with pytest.raises(SgrKitError, match=r"cardinality.csv:6: expected a number in column 'value', found ''"):
        reference.load("cardinality", directory=copy_dir)
