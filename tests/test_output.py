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
