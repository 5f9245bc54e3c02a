"""Splitting answer text into cells: the reference scorer's cell cleaning.

Every cell, predicted or reference, is cleaned by :func:`clean_cell` as soon as
it is split from the table syntax; the canonicalizers (:mod:`sgr_kit.canonicalize`)
start from the cleaned text.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["clean_cell", "split_pipe", "is_alignment", "RECORD_SEPARATORS"]

#: Characters that may separate records written on one line (``Adams|12,Brown|7``).
RECORD_SEPARATORS = (",", ";")

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EDGE = "`* "
_PIPE_SPLIT = re.compile(r"(?<!\\)\|")
_ALIGNMENT = re.compile(r":?-{3,}:?")


def clean_cell(raw: str) -> str:
    """Clean one cell exactly as the reference scorer does.

    Unicode NFKC; trim; Markdown link ``[text](url)`` -> ``text``; leading and
    trailing backticks, asterisks and spaces removed; runs of whitespace -> one
    space; trim.

    Parameters
    ----------
    raw : str
        A cell as split from the answer text.

    Returns
    -------
    str

    Examples
    --------
    >>> clean_cell("  **[GSE1234](https://example.org/x)**  ")
    'GSE1234'
    >>> clean_cell("`a \\t  b`")
    'a b'
    >>> clean_cell("\\uff21\\uff22")  # full-width letters, NFKC
    'AB'
    """
    s = unicodedata.normalize("NFKC", raw).strip()
    if "[" in s:
        s = _LINK.sub(r"\1", s)
    # str.split() splits on exactly the characters of the regex class \s (Unicode
    # whitespace), so this equals re.sub(r"\s+", " ", ...).strip()
    return " ".join(s.strip(_EDGE).split())


def split_pipe(line: str) -> list[str]:
    """Split one ``a | b | c`` line into stripped cells (outer pipes dropped, ``\\|`` kept as a pipe)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    if "\\|" not in body:  # no escaped pipe: every pipe separates
        return [cell.strip() for cell in body.split("|")]
    return [cell.strip().replace("\\|", "|") for cell in _PIPE_SPLIT.split(body)]


def is_alignment(cells: list[str]) -> bool:
    """True for a Markdown alignment row (``---``, ``:---:``) split into cells."""
    return all(_ALIGNMENT.fullmatch(cell.strip()) for cell in cells)
