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
        s = unlink(s)
    # str.split() splits on exactly the characters of the regex class \s (Unicode
    # whitespace), so this equals re.sub(r"\s+", " ", ...).strip()
    return " ".join(s.strip(_EDGE).split())


def unlink(s: str) -> str:
    """Replace every Markdown link ``[text](url)`` by its text, in time linear in ``len(s)``.

    The same result as ``re.sub(r"\\[([^\\]]+)\\]\\([^)]*\\)", r"\\1", s)`` (the reference scorer's
    rule), whose backtracking takes time quadratic in the length of text such as ``[[[[...``.
    Every ``[`` before the same ``]`` shares that ``]``, so when one of them cannot start a link,
    none of them can.

    Examples
    --------
    >>> unlink("see [GSE1](https://x.org/a) and [b](c)"), unlink("[[a](u)"), unlink("[](u) [x]")
    ('see GSE1 and b', '[a', '[](u) [x]')
    """
    out: list[str] = []
    done = 0  # s[:done] is already in out
    i = s.find("[")
    while i != -1:
        j = s.find("]", i + 1)
        if j == -1:
            break
        if j == i + 1:  # "[]": an empty text is no link; a later "[" may still start one
            i = s.find("[", i + 1)
            continue
        if s.startswith("(", j + 1):
            k = s.find(")", j + 2)
            if k == -1:
                break  # no ")" anywhere after: no later "[" can start a link either
            out += (s[done:i], s[i + 1 : j])
            done = k + 1
            i = s.find("[", done)
            continue
        i = s.find("[", j + 1)  # every "[" before j fails the same way
    if not out:
        return s
    out.append(s[done:])
    return "".join(out)


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
