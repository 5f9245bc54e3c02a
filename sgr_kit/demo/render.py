"""Answer text in the formats agents really produce.

:func:`render` writes answer rows as one of :data:`FORMATS`:

``markdown``        a Markdown table with header and alignment row
``markdown_prose``  the same with a sentence before and after
``fenced``          pipe rows with header inside a fenced code block, prose before
``pipe``            native pipe rows with the header line the task asks for
``pipe_rows``       native pipe rows only, no header
``csv``             comma-separated with header (quoted where needed)
``tsv``             tab-separated with header
``json``            a JSON list of objects keyed by column name
``none``            ``NONE`` (an empty answer)
``prose``           prose only, no table (unparseable)
``header_only``     a header line and no rows (unparseable)

The prose is written without commas, pipes or tabs, so that no sentence can be
mistaken for a table row by a line-based parser.
"""

from __future__ import annotations

import csv
import io
import json
from random import Random

__all__ = ["FORMATS", "TABLE_FORMATS", "render"]

TABLE_FORMATS = ("markdown", "markdown_prose", "fenced", "pipe", "pipe_rows", "csv", "tsv", "json")
FORMATS = TABLE_FORMATS + ("none", "prose", "header_only")

_BEFORE = (
    "Here is the table I compiled from the filtered results.",
    "Below are the records that satisfy all the stated conditions.",
    "I applied the required filters on the source and read each detail page.",
    "Final answer:",
)
_AFTER = (
    "All values were read from the official detail pages.",
    "Rows are sorted as requested.",
    "Let me know if you need the underlying query parameters.",
)
_PROSE = (
    "I was not able to assemble the requested table. The portal returned records for several "
    "slices but I could not confirm which of them satisfy every condition so no rows are reported.",
    "The search interface timed out repeatedly and the export did not complete. Based on what I saw "
    "the answer most likely involves only a handful of records but I cannot list them reliably.",
    "After reviewing the available views I believe the information is not published in the required "
    "form. A manual request to the data provider would be needed.",
)


def _csv(names: list[str], rows: list[list[str]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(names)
    w.writerows(rows)
    return buf.getvalue().rstrip("\n")


def render(rows: list[list[str]], names: list[str], fmt: str, rng: Random) -> str:
    """Write answer ``rows`` (cells in the order of ``names``) as text in format ``fmt``.

    Parameters
    ----------
    rows : list of list of str
    names : list of str
        Column names (the task's schema).
    fmt : str
        One of :data:`FORMATS`. Empty ``rows`` always give ``NONE`` unless ``fmt``
        is ``prose`` or ``header_only``.
    rng : random.Random
        Picks the prose sentences.

    Examples
    --------
    >>> print(render([["a1", "2"]], ["id", "n"], "markdown", Random(0)))
    | id | n |
    |---|---|
    | a1 | 2 |
    >>> render([["a1", "2"]], ["id", "n"], "pipe_rows", Random(0))
    'a1|2'
    >>> render([], ["id", "n"], "csv", Random(0))
    'NONE'
    """
    if fmt == "prose":
        return rng.choice(_PROSE)
    if fmt == "header_only":
        return "|".join(names)
    if fmt == "none" or not rows:
        return "NONE"
    if fmt in ("markdown", "markdown_prose"):
        lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        text = "\n".join(lines)
        if fmt == "markdown_prose":
            text = f"{rng.choice(_BEFORE)}\n\n{text}\n\n{rng.choice(_AFTER)}"
        return text
    if fmt == "fenced":
        body = "\n".join(["|".join(names)] + ["|".join(r) for r in rows])
        return f"{rng.choice(_BEFORE)}\n\n```\n{body}\n```"
    if fmt == "pipe":
        return "\n".join(["|".join(names)] + ["|".join(r) for r in rows])
    if fmt == "pipe_rows":
        return "\n".join("|".join(r) for r in rows)
    if fmt == "csv":
        return _csv(names, rows)
    if fmt == "tsv":
        return "\n".join("\t".join(r) for r in [names, *rows])
    if fmt == "json":
        return json.dumps([dict(zip(names, r)) for r in rows], ensure_ascii=False, indent=1)
    raise ValueError(f"unknown answer format {fmt!r}; expected one of {', '.join(FORMATS)}")
