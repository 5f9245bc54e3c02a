from __future__ import annotations

import pandas as pd
import pytest

from sgr_kit.errors import SgrKitError
from sgr_kit.output import write_table


def test_write_csv_and_parquet_round_trip(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    for name in ("t.csv", "t.parquet"):
        path = write_table(df, tmp_path / name)
        back = pd.read_csv(path) if name.endswith(".csv") else pd.read_parquet(path)
        pd.testing.assert_frame_equal(back, df)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.parquet"]  # no temp files left


def test_refuses_to_overwrite_without_force(tmp_path):
    target = tmp_path / "scores.csv"
    target.write_text("precious\n")
    with pytest.raises(SgrKitError, match="scores.csv already exists; pass --force"):
        write_table(pd.DataFrame({"a": [1]}), target)
    assert target.read_text() == "precious\n"
    write_table(pd.DataFrame({"a": [1]}), target, force=True)
    assert target.read_text() == "a\n1\n"


def test_rejects_unknown_suffix(tmp_path):
    with pytest.raises(SgrKitError, match=r"expected a file name ending in \.csv or \.parquet, got '\.xlsx'"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "scores.xlsx")


def test_new_outputs_are_readable_by_group_and_others_under_umask_022(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        path = write_table(pd.DataFrame({"a": [1]}), tmp_path / "scores.csv")
        from sgr_kit.output import write_text

        page = write_text("<p>report</p>", tmp_path / "page.html")
    finally:
        os.umask(old)
    for p in (path, page):
        assert p.stat().st_mode & 0o777 == 0o644  # what `touch` would give under umask 022


def test_umask_077_keeps_outputs_private(tmp_path):
    import os

    old = os.umask(0o077)
    try:
        path = write_table(pd.DataFrame({"a": [1]}), tmp_path / "scores.csv")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, SystemExit, RuntimeError])
def test_an_interrupted_write_leaves_the_earlier_file_and_no_temporary_file(tmp_path, interruption):
    from sgr_kit.output import atomic_path

    target = tmp_path / "scores.csv"
    target.write_text("earlier\n")
    with pytest.raises(interruption):
        with atomic_path(target) as tmp:
            with open(tmp, "w") as fh:
                fh.write("half of it")
            raise interruption()
    assert target.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.csv"]


def test_a_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "existing").write_text("x")
    with pytest.raises(SgrKitError, match=r"existing is an existing file, not a folder"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "existing" / "o.csv")
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(SgrKitError, match=r"folder\.csv is a directory; expected a file name"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "folder.csv")


def _cells_batches(n_batches: int = 5, rows: int = 7):
    import pyarrow as pa

    from sgr_kit.score.parallel import CELL_SCHEMA

    frames = []
    for b in range(n_batches):
        frames.append(pd.DataFrame({
            "system": [f"s{b}"] * rows, "task_id": ["t_001"] * rows, "repeat": [0] * rows,
            "pred_row": pd.array([i if i % 3 else None for i in range(rows)], dtype="Int64"),
            "gold_row": pd.array([None] + list(range(rows - 1)), dtype="Int64"),
            "column": ["id"] * rows, "raw": ["x, \"y\"\n"] * (rows - 1) + [None],
            "canonical": ["x"] * rows, "reference": [None] * rows, "verdict": ["match"] * rows,
            "language": ["en"] * rows,
        }).astype({"system": "str", "task_id": "str", "column": "str", "raw": "str", "canonical": "str",
                   "reference": "str", "verdict": "str", "language": "str"}))  # fmt: skip
    batches = [pa.RecordBatch.from_pandas(f, schema=CELL_SCHEMA, preserve_index=False) for f in frames]
    return frames, batches


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_streamed_table_reads_back_as_the_whole_table(tmp_path, suffix):
    from sgr_kit.output import table_stream
    from sgr_kit.score.parallel import CELL_SCHEMA

    frames, batches = _cells_batches()
    whole = pd.concat(frames, ignore_index=True)
    with table_stream(tmp_path / f"cells{suffix}", schema=CELL_SCHEMA, row_group_rows=4) as out:
        for batch in batches:
            out.write(batch)
    assert out.rows == len(whole)
    write_table(whole, tmp_path / f"whole{suffix}")
    if suffix == ".csv":  # the same bytes as writing the whole table at once
        assert (tmp_path / "cells.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    else:
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "cells.parquet"), whole)
        import pyarrow.parquet as pq

        assert [pq.ParquetFile(tmp_path / "cells.parquet").metadata.row_group(i).num_rows for i in range(9)] == \
            [4] * 8 + [3]  # fixed row groups, whatever the batches' sizes


def test_an_interrupted_stream_leaves_the_earlier_file(tmp_path):
    from sgr_kit.output import table_stream
    from sgr_kit.score.parallel import CELL_SCHEMA

    _, batches = _cells_batches()
    target = tmp_path / "cells.parquet"
    target.write_bytes(b"earlier")
    with pytest.raises(SgrKitError, match="cells.parquet already exists; pass --force"):
        with table_stream(target, schema=CELL_SCHEMA):
            pass
    with pytest.raises(KeyboardInterrupt):
        with table_stream(target, schema=CELL_SCHEMA, force=True) as out:
            out.write(batches[0])
            raise KeyboardInterrupt()
    assert target.read_bytes() == b"earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cells.parquet"]


def test_an_empty_stream_writes_the_header_or_schema(tmp_path):
    from sgr_kit.output import table_stream
    from sgr_kit.score import cells_frame
    from sgr_kit.score.parallel import CELL_SCHEMA

    for suffix in (".csv", ".parquet"):
        with table_stream(tmp_path / f"c{suffix}", schema=CELL_SCHEMA):
            pass
    assert (tmp_path / "c.csv").read_text().startswith("system,task_id,repeat,pred_row")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "c.parquet"), cells_frame([]))


@pytest.mark.parametrize("name", ["../../etc/passwd", "/tmp/x", "a/b", "..", ".", "", "C:\\x", "a\x00b", "\u202e.."])
def test_a_name_from_data_never_leaves_the_folder(tmp_path, name):
    from sgr_kit.output import child_path

    path = child_path(tmp_path, name, suffix=".md")
    assert path.parent == tmp_path and path.resolve().parent == tmp_path.resolve()
    assert not path.name.startswith(".")


def test_temporary_files_left_by_an_interrupted_write_are_listed_with_the_command_to_remove_them(tmp_path):
    from sgr_kit.output import leftover_temporaries

    left = tmp_path / ".scores.csv.a1b2c3d4.tmp"
    left.write_text("half a table", encoding="utf-8")
    (tmp_path / ".scores.csv.mine").write_text("not sgr-kit's", encoding="utf-8")
    assert leftover_temporaries(tmp_path / "scores.csv") == [left]
    with pytest.warns(UserWarning, match=r"scores\.csv: 1 temporary file\(s\) beside it left by a write that was "
                                         r"interrupted.*remove them: rm -- \S*\.scores\.csv\.a1b2c3d4\.tmp"):
        write_table(pd.DataFrame({"a": [1]}), tmp_path / "scores.csv")
    assert left.exists()  # listed, never removed: another process may still be writing it
