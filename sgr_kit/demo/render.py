"""Answer text in the formats agents really produce.

:func:`render` writes answer rows as one of :data:`FORMATS`:

``markdown``        a Markdown table with header and alignment row
``markdown_prose``  the same with a sentence before and after
``fenced``          pipe rows with header inside a fenced code block, prose before
``pipe``            a header line in the task's own spelling, then one pipe record per line
``pipe_rows``       pipe records, one per line, no header
``one_line``        pipe records on one line joined by the record separator (``;`` for per-line tasks)
``csv``             comma-separated with header (quoted where needed)
``tsv``             tab-separated with header
``json``            a JSON list of objects keyed by column name
``none``            ``NONE`` (an empty answer)
``prose``           prose only, no table (unparseable)
``header_only``     a header line and no rows (unparseable)

Headers are written in the task's own spelling (the names of its output template)
or, in some Markdown tables, with the schema's names. A task whose template writes
its first two columns as one composite cell ``<a>:<b>`` gets that cell in every
format (headed ``a:b``), as the template asks.

The prose is written without commas, pipes or tabs, so that no sentence can be
mistaken for a table row by a line-based parser.
"""

from __future__ import annotations

import csv
import io
import json
from random import Random

__all__ = ["FORMATS", "TABLE_FORMATS", "render"]

TABLE_FORMATS = ("markdown", "markdown_prose", "fenced", "pipe", "pipe_rows", "one_line", "csv", "tsv", "json")
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


def render(rows: list[list[str]], names: list[str], fmt: str, rng: Random, *,
           spellings: list[str] | None = None, composite: bool = False, separator: str = "\n") -> str:
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
        Picks the prose sentences and, in Markdown tables, the header's spelling.
    spellings : list of str, optional
        The task's own spelling of the column names (default ``names``).
    composite : bool, default False
        The first two columns form one cell ``<a>:<b>`` (headed ``a:b``).
    separator : str, default "\\n"
        The task's record separator; ``one_line`` joins records with it (``;`` for ``"\\n"``).

    Examples
    --------
    >>> print(render([["a1", "2"]], ["id", "n"], "markdown", Random(0)))
    | id | n |
    |---|---|
    | a1 | 2 |
    >>> render([["a1", "2"]], ["id", "n"], "pipe_rows", Random(0))
    'a1|2'
    >>> render([["a", "b", "2"], ["c", "d", "3"]], ["x", "y", "n"], "one_line", Random(0),
    ...        composite=True, separator=",")
    'a:b|2,c:d|3'
    >>> render([], ["id", "n"], "csv", Random(0))
    'NONE'
    """
    spelled = list(spellings or names)
    names = list(names)
    if composite and len(names) > 1:
        spelled = [f"{spelled[0]}:{spelled[1]}", *spelled[2:]]
        names = [f"{names[0]}:{names[1]}", *names[2:]]
        rows = [[f"{r[0]}:{r[1]}", *r[2:]] for r in rows]
    if fmt == "prose":
        return rng.choice(_PROSE)
    if fmt == "header_only":
        return "|".join(spelled)
    if fmt == "none" or not rows:
        return "NONE"
    if fmt in ("markdown", "markdown_prose"):
        head = spelled if rng.random() < 0.6 else list(names)
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(names)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        text = "\n".join(lines)
        if fmt == "markdown_prose":
            text = f"{rng.choice(_BEFORE)}\n\n{text}\n\n{rng.choice(_AFTER)}"
        return text
    if fmt == "fenced":
        body = "\n".join(["|".join(spelled)] + ["|".join(r) for r in rows])
        return f"{rng.choice(_BEFORE)}\n\n```\n{body}\n```"
    if fmt == "pipe":
        return "\n".join(["|".join(spelled)] + ["|".join(r) for r in rows])
    records = ["|".join(r) for r in rows]
    if fmt == "pipe_rows":
        return "\n".join(records)
    if fmt == "one_line":
        return (";" if separator == "\n" else separator).join(records)
    if fmt == "csv":
        return _csv(names, rows)
    if fmt == "tsv":
        return "\n".join("\t".join(r) for r in [names, *rows])
    if fmt == "json":
        return json.dumps([dict(zip(names, r)) for r in rows], ensure_ascii=False, indent=1)
    raise ValueError(f"unknown answer format {fmt!r}; expected one of {', '.join(FORMATS)}")
