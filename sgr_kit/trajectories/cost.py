"""What a run cost: price files, and the cost of every trajectory with where it came from.

A **price file** says what a model's tokens cost, in USD per million tokens. It is a CSV file
(``#`` lines are comments) or a YAML file holding a list of the same rows::

    model,input,cached_input,output,per_search,note
    example-large,2.50,0.25,10.00,0.01,EXAMPLE prices (not real)

Each row names a ``system`` (the system's name in the runs) or a ``model`` (the model a
transcript names): a file may have both columns, one of them filled per row. ``input``,
``cached_input`` and ``output`` are required, ``per_search`` (USD per web search call) and
``note`` are optional, other columns are refused. sgr-kit ships
no prices as facts (they change): the demo ships ``prices-example.csv``, marked as an example.

A call costs ``(input - cached) x input + cached x cached_input + output x output`` (the
reasoning tokens are part of the output tokens), plus ``searches x per_search`` when the price
row has one. :func:`price_usage` fills a usage table's ``cost_usd`` from the prices wherever the
agent reported no cost of its own, and says where every cost came from in ``cost_source``:
``reported`` (the agent's own figure, never replaced), ``priced`` (tokens times prices) or
``unknown`` (no price row for the system or model, or tokens not reported: left missing,
never 0). :func:`sgr_kit.trajectories.trajectory_usage` applies it when given ``prices=``.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import SgrKitError, decode_yaml, describe, where
from ..schema import TEXT_DTYPE

__all__ = ["PRICE_COLUMNS", "COST_SOURCES", "read_prices", "price_usage", "call_cost", "is_example_prices"]

#: Columns of :func:`read_prices`, in order: ``match`` is ``"system"`` or ``"model"``, ``name`` the
#: system or model, the prices in USD per million tokens (``per_search`` USD per search, NaN when
#: not given), ``source`` the file and line of the row.
PRICE_COLUMNS: tuple[str, ...] = ("match", "name", "input", "cached_input", "output", "per_search", "source")
#: Where a cost came from, as :func:`price_usage` writes it in ``cost_source``.
COST_SOURCES: tuple[str, ...] = ("reported", "priced", "unknown")
_PRICES = ("input", "cached_input", "output")
_ALLOWED = frozenset(("system", "model", *_PRICES, "per_search", "note"))


def call_cost(input_tokens: float, cached_input_tokens: float, output_tokens: float, *, input: float,
              cached_input: float, output: float) -> float:  # fmt: skip
    """USD of a call: ``(input - cached) x input + cached x cached_input + output x output``, prices per million.

    Examples
    --------
    >>> call_cost(1_000_000, 400_000, 10_000, input=2.0, cached_input=0.5, output=8.0)
    1.48
    """
    fresh = input_tokens - cached_input_tokens
    return (fresh * input + cached_input_tokens * cached_input + output_tokens * output) / 1_000_000


#: The largest price read (USD per million tokens, or per web search): larger ones are typing mistakes
#: (``1e300`` would make a cost of infinity).
MAX_PRICE = 1_000_000
_PRICE_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _price(value: Any, *, column: str, loc: str, optional: bool = False) -> float:
    """One price: a number from 0 to :data:`MAX_PRICE`, given as a number or as ASCII decimal text.

    Text is read only when it is plain decimal (``2``, ``0.5``, ``1.5e-1``): ``1_000``,
    full-width digits, ``inf`` and ``nan`` are refused, though Python's ``float`` reads them.
    """
    unit = "USD per web search call" if column == "per_search" else "USD per million tokens"
    expected = f"{loc}: column {describe(column)}: expected a price in {unit} (a number from 0 to {MAX_PRICE:,})"
    shown = value
    if isinstance(value, str):
        text = value.strip()
        if not text and optional:
            return math.nan
        if not _PRICE_TEXT.fullmatch(text):
            raise SgrKitError(f"{expected}; found {describe(text)}")
        value = float(text)
    if value is None and optional:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_PRICE:
        raise SgrKitError(f"{expected}; found {describe(shown) if isinstance(shown, str) else describe(value)}")
    return float(value)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (isinstance(value, str)
                                                                               and not value.strip())


def _row(raw: dict, *, loc: str, columns: dict[str, str]) -> dict:
    """One checked price row; ``columns`` maps a column to its location (``file:line:column``)."""
    unknown = [c for c in raw if c not in _ALLOWED]
    if unknown:
        raise SgrKitError(f"{columns.get(unknown[0], loc)}: unknown column {unknown[0]!r}; a price file has "
                          f"system or model, input, cached_input, output, and optionally per_search and "
                          f"note")  # fmt: skip
    keys = [k for k in ("system", "model") if k in raw and not _blank(raw[k])]
    if len(keys) != 1:
        found = "both" if len(keys) == 2 else "neither"
        raise SgrKitError(f"{loc}: expected a system or a model (one of them per row) naming what the prices are "
                          f"for; found {found}")  # fmt: skip
    name = raw[keys[0]]
    name = str(name).strip() if isinstance(name, (str, int, float)) and not isinstance(name, bool) else ""
    if not name:
        raise SgrKitError(f"{columns.get(keys[0], loc)}: column {keys[0]!r} is empty; expected the {keys[0]}'s name")
    out = {"match": keys[0], "name": name}
    for column in _PRICES:
        if column not in raw:
            raise SgrKitError(f"{loc}: column {column!r} is missing; expected {', '.join(_PRICES)} in USD per "
                              f"million tokens")  # fmt: skip
        out[column] = _price(raw[column], column=column, loc=columns.get(column, loc))
    out["per_search"] = _price(raw.get("per_search"), column="per_search", loc=columns.get("per_search", loc),
                               optional=True)  # fmt: skip
    out["source"] = loc
    return out


def _csv_rows(path: Path, text: str) -> list[dict]:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1)
             if line.strip() and not line.lstrip().startswith("#")]  # fmt: skip
    if not lines:
        raise SgrKitError(f"{path}: empty; expected a header (system or model, input, cached_input, output) and rows")
    reader = csv.reader(io.StringIO("\n".join(line for _, line in lines)))
    rows = list(reader)
    header = [h.strip() for h in rows[0]]
    line_of_header = lines[0][0]
    for i, name in enumerate(header):
        if name not in _ALLOWED:
            raise SgrKitError(f"{where(path, line_of_header)}: column {i + 1}: unknown column {name!r}; a price file "
                              f"has system or model, input, cached_input, output, and optionally per_search and "
                              f"note")  # fmt: skip
    out = []
    for (n, _), cells in zip(lines[1:], rows[1:]):
        loc = where(path, n)
        if len(cells) != len(header):
            raise SgrKitError(f"{loc}: {len(cells)} cell(s); the header has {len(header)} ({', '.join(header)})")
        raw = dict(zip(header, cells))
        columns = {name: f"{loc}: column {i + 1}" for i, name in enumerate(header)}
        out.append(_row(raw, loc=loc, columns=columns))
    return out


def _yaml_rows(path: Path, text: str) -> list[dict]:
    data, node = decode_yaml(text, path, node=True)
    if isinstance(data, dict) and set(data) == {"prices"}:
        data = data["prices"]
        node = node.value[0][1]
    if not isinstance(data, list) or not data:
        raise SgrKitError(f"{path}: expected a list of price rows (each with system or model, input, cached_input, "
                          f"output); found {type(data).__name__}")  # fmt: skip
    out = []
    for item, raw in zip(node.value, data):
        loc = where(path, item.start_mark.line + 1)
        if not isinstance(raw, dict):
            raise SgrKitError(f"{loc}: expected a price row (a mapping); found {type(raw).__name__}")
        columns = {k.value: f"{where(path, v.start_mark.line + 1)}: column {v.start_mark.column + 1}"
                   for k, v in item.value}  # fmt: skip
        for k, v in item.value:  # a price as written (YAML reads 1_000 and 0x10 as numbers): checked as text
            if k.value in (*_PRICES, "per_search") and v.tag in _YAML_NUMBER_TAGS:
                raw[k.value] = v.value
        out.append(_row(raw, loc=loc, columns=columns))
    return out


_YAML_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


def read_prices(path: str | os.PathLike | pd.DataFrame) -> pd.DataFrame:
    """Read a price file (CSV, or YAML with the same columns) into a table of :data:`PRICE_COLUMNS`.

    Parameters
    ----------
    path : path or DataFrame
        A ``.csv`` file, or a ``.yaml``/``.yml`` file holding a list of rows (or ``{prices: [...]}``);
        a DataFrame with the file's columns is checked the same way.

    Returns
    -------
    DataFrame
        One row per price row: ``match`` (``system`` or ``model``), ``name``, ``input``,
        ``cached_input``, ``output`` (USD per million tokens), ``per_search`` (USD per search
        call; NaN when not given) and ``source`` (``file:line``).

    Raises
    ------
    SgrKitError
        A missing file, an unknown or missing column, a price that is not a number >= 0 (naming
        file, line and column), a row naming both or neither a system and a model, the same
        system or model twice.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "prices.csv"
    >>> _ = p.write_text("# EXAMPLE prices\\nmodel,input,cached_input,output\\nm-1,2,0.5,8\\n")
    >>> read_prices(p)[["match", "name", "input", "cached_input", "output", "source"]].to_dict("records")
    [{'match': 'model', 'name': 'm-1', 'input': 2.0, 'cached_input': 0.5, 'output': 8.0, 'source': '...prices.csv:3'}]
    >>> _ = p.write_text("model,input,cached_input,output\\nm-1,2,cheap,8\\n")
    >>> read_prices(p)
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: ...prices.csv:2: column 3: column 'cached_input': expected a price in USD per \
million tokens (a number from 0 to 1,000,000); found 'cheap'
    """
    if isinstance(path, pd.DataFrame):
        if set(PRICE_COLUMNS) <= set(path.columns):
            return path[list(PRICE_COLUMNS)].reset_index(drop=True)
        rows = [_row({k: v for k, v in r.items() if not (k == "per_search" and pd.isna(v))},
                     loc=f"prices row {i}", columns={}) for i, r in enumerate(path.to_dict("records"))]  # fmt: skip
        source = "prices"
    else:
        path = Path(path)
        if not path.is_file():
            raise SgrKitError(f"prices {path}: no such file; expected a CSV or YAML price file")
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise SgrKitError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
        if path.suffix.lower() in (".yaml", ".yml"):
            rows = _yaml_rows(path, text)
        elif path.suffix.lower() == ".csv":
            rows = _csv_rows(path, text)
        else:
            raise SgrKitError(f"prices {path}: expected a .csv, .yaml or .yml file; found '{path.suffix}'")
        source = str(path)
    seen: dict[tuple[str, str], str] = {}
    for row in rows:
        key = (row["match"], row["name"].casefold())
        if key in seen:
            raise SgrKitError(f"{row['source']}: {row['match']} {row['name']!r} is priced twice (first at "
                              f"{seen[key]}); expected one row per {row['match']}")  # fmt: skip
        seen[key] = row["source"]
    if not rows:
        raise SgrKitError(f"{source}: no price rows")
    table = pd.DataFrame(rows, columns=list(PRICE_COLUMNS))
    return table.astype({"match": TEXT_DTYPE, "name": TEXT_DTYPE, "source": TEXT_DTYPE})


def is_example_prices(path: str | os.PathLike) -> bool:
    """True when a price file marks itself as an example: a ``#`` comment starting with ``EXAMPLE``.

    Pages that use such a file say so beside every priced cost ("EXAMPLE prices: made up").

    Examples
    --------
    >>> from sgr_kit.resources import demo_dir
    >>> is_example_prices(demo_dir() / "prices-example.csv")
    True
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.lstrip().startswith("#") and line.lstrip().lstrip("#").strip().startswith("EXAMPLE")
               for line in text.splitlines())  # fmt: skip


def _lookup(prices: pd.DataFrame) -> tuple[dict[str, dict], dict[str, dict]]:
    by = {"system": {}, "model": {}}
    for row in prices.to_dict("records"):
        by[row["match"]][str(row["name"]).casefold()] = row
    return by["system"], by["model"]


def _number(frame: pd.DataFrame, column: str) -> np.ndarray:
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    return pd.to_numeric(frame[column], errors="coerce").astype("float64").to_numpy()


def _unmatched_rows(table: pd.DataFrame, *, names: pd.Series, models: np.ndarray) -> None:
    """Warn for each price row that names no system (or model) of the runs, with the closest names."""
    from .match import closest_names

    known = {"system": sorted(set(names)), "model": sorted({m for m in models if m})}
    present = {"system": {n.casefold() for n in known["system"]}, "model": set(known["model"])}
    for row in table.to_dict("records"):
        match, name = str(row["match"]), str(row["name"])
        if name.casefold() in present[match]:
            continue
        near = closest_names(name, known[match])
        hint = (f"closest: {', '.join(map(repr, near))}" if near else
                f"the runs' {match}s: {', '.join(map(repr, known[match][:6]))}" if known[match] else
                f"no run names a {match}")  # fmt: skip
        warnings.warn(f"{row['source']}: price row for {match} {name!r} matches no {match} of the runs ({hint}); "
                      f"its prices are not used", UserWarning, stacklevel=4)


def price_usage(usage: pd.DataFrame, prices: Any = None) -> pd.DataFrame:
    """``usage`` with ``cost_usd`` filled from ``prices`` where the agent reported none, and ``cost_source``.

    Parameters
    ----------
    usage : DataFrame
        One row per trajectory with ``system`` and the token columns ``input_tokens,
        cached_input_tokens, output_tokens`` (missing = not reported), optionally ``model``,
        ``searches`` and ``cost_usd`` (the agent's own cost; missing = not reported): the table
        of :func:`sgr_kit.trajectories.trajectory_usage`.
    prices : path, DataFrame or None
        A price file or the table of :func:`read_prices`. None: only reported costs are known.

    Returns
    -------
    DataFrame
        A copy of ``usage`` with ``cost_usd`` (float, NaN when unknown) and ``cost_source``:

        - ``reported``: the agent's own cost, kept as it is (a price file never replaces it);
        - ``priced``: tokens times the row of the system (looked up first) or of the trajectory's
          ``model`` (names compared case-insensitively); the input and output token counts must be
          known, and the cached ones too unless the row prices cached input as plain input;
          ``searches x per_search`` is added when the row has ``per_search``;
        - ``unknown``: neither; ``cost_usd`` stays missing.

    Warns
    -----
    UserWarning
        For each price row whose system or model no run of ``usage`` has (a typo, or another
        name in the runs), naming its file and line and the closest names, once per row.

    Raises
    ------
    SgrKitError
        A usage table without ``system``; a bad price file (see :func:`read_prices`).

    Examples
    --------
    >>> usage = pd.DataFrame({"system": ["a", "b", "c"], "model": ["m-1", "m-1", "other"],
    ...     "input_tokens": [1_000_000, 2_000_000, 10], "cached_input_tokens": [0, 1_000_000, 0],
    ...     "output_tokens": [100_000, 0, 10], "cost_usd": [0.3, None, None]})
    >>> prices = pd.DataFrame({"model": ["m-1"], "input": [2.0], "cached_input": [0.5], "output": [8.0]})
    >>> price_usage(usage, prices)[["system", "cost_usd", "cost_source"]].to_dict("records")
    [{'system': 'a', 'cost_usd': 0.3, 'cost_source': 'reported'}, {'system': 'b', 'cost_usd': 2.5, 'cost_source': \
'priced'}, {'system': 'c', 'cost_usd': nan, 'cost_source': 'unknown'}]
    """
    if not isinstance(usage, pd.DataFrame) or "system" not in usage.columns:
        raise SgrKitError("usage: expected the table of sgr_kit.trajectories.trajectory_usage (one row per "
                          "trajectory, with system and its token columns)")  # fmt: skip
    out = usage.copy()
    reported = _number(out, "cost_usd")
    cost = reported.copy()
    source = np.where(np.isfinite(reported), "reported", "unknown").astype(object)
    if prices is not None and len(out):
        table = read_prices(prices)
        systems, models = _lookup(table)
        tokens_in, cached, tokens_out = (_number(out, c) for c in ("input_tokens", "cached_input_tokens",
                                                                   "output_tokens"))  # fmt: skip
        searches = _number(out, "searches")
        names = out["system"].astype(str).str.casefold().to_numpy()
        model_names = (out["model"].astype(object).where(out["model"].notna(), "").astype(str).str.casefold()
                       .to_numpy() if "model" in out.columns else np.full(len(out), ""))  # fmt: skip
        for i in np.flatnonzero(~np.isfinite(reported)):
            row = systems.get(names[i]) or (models.get(model_names[i]) if model_names[i] else None)
            if row is None or not (np.isfinite(tokens_in[i]) and np.isfinite(tokens_out[i])):
                continue
            c = cached[i]
            if not np.isfinite(c):
                if row["cached_input"] != row["input"]:
                    continue  # the cached share changes the cost and is not known
                c = 0.0
            value = call_cost(tokens_in[i], c, tokens_out[i], input=row["input"], cached_input=row["cached_input"],
                              output=row["output"])  # fmt: skip
            per_search = row["per_search"]
            if per_search is not None and np.isfinite(per_search):
                if not np.isfinite(searches[i]):
                    continue
                value += searches[i] * per_search
            cost[i], source[i] = value, "priced"
        _unmatched_rows(table, names=out["system"].astype(str), models=model_names)
    out["cost_usd"] = cost
    out["cost_source"] = pd.Series(source, index=out.index, dtype=TEXT_DTYPE)
    return out
