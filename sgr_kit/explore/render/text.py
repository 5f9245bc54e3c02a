"""Escaping: every value shown by the explorer and the annotator goes through here.

:func:`text_html` escapes a value (:func:`html.escape`), shows invisible direction and
zero-width controls as visible markers (so a right-to-left override can neither reverse
the page nor hide why a cell did not match) and isolates it in ``<bdi>``. Long values are
cut with a visible "... (N more characters)" note. :func:`plain_label` does the same for
plain-text widget labels, :func:`attr_text` for HTML attributes (tooltips).
"""

from __future__ import annotations

import html
import math
import re
import unicodedata
from typing import Any

import pandas as pd

from sgr_kit.text import CONTROL, control_name

__all__ = ["CELL_LIMIT", "TEXT_LIMIT", "truncate", "more_note", "text_html", "plain_label", "attr_text", "percent"]

#: Characters shown at most per cell, and of an answer's text.
CELL_LIMIT = 200
TEXT_LIMIT = 10_000


#: Invisible characters shown as markers (one definition, in :mod:`sgr_kit.text`).
_CONTROL = CONTROL
_short = control_name


def _marker(match: re.Match) -> str:
    char = match.group(0)
    name = unicodedata.name(char, "control character")
    return f'<span class="sgr-ctl" title="U+{ord(char):04X} {html.escape(name)}">⟨{_short(char)}⟩</span>'


def truncate(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to ``limit`` characters, and how many were cut.

    Examples
    --------
    >>> truncate("abcdef", 4)
    ('abcd', 2)
    >>> truncate("abc", 4)
    ('abc', 0)
    """
    if limit < 0:
        raise ValueError(f"limit must be >= 0; found {limit}")
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def more_note(hidden: int) -> str:
    """The visible note after a cut value."""
    return f'<span class="sgr-more">... ({hidden:,} more characters)</span>'


def text_html(value: Any, *, limit: int | None = CELL_LIMIT, isolate: bool = True) -> str:
    """One value as safe HTML: escaped, controls made visible, isolated, cut at ``limit``.

    Parameters
    ----------
    value : object
        Shown with ``str``; None and NaN show as nothing.
    limit : int or None, default :data:`CELL_LIMIT`
        Characters shown; the rest is replaced by "... (N more characters)".
    isolate : bool, default True
        Wrap in ``<bdi>`` so right-to-left text cannot reorder what surrounds it.

    Examples
    --------
    >>> text_html("<script>alert(1)</script>")
    '<bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi>'
    >>> text_html("abc\\u202edef", isolate=False)
    'abc<span class="sgr-ctl" title="U+202E RIGHT-TO-LEFT OVERRIDE">⟨RLO⟩</span>def'
    >>> text_html("x" * 205).endswith('x</bdi><span class="sgr-more">... (5 more characters)</span>')
    True
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    text = str(value)
    hidden = 0
    if limit is not None:
        text, hidden = truncate(text, limit)
    body = _CONTROL.sub(_marker, html.escape(text, quote=True))
    if isolate:
        body = f"<bdi>{body}</bdi>"
    return body + (more_note(hidden) if hidden else "")


def plain_label(value: Any, *, width: int | None = None) -> str:
    """A value as plain text for a widget label: controls shown as ``⟨RLO⟩``, cut to ``width``.

    Examples
    --------
    >>> plain_label("a\\u202eb"), plain_label("abcdefgh", width=5)
    ('a⟨RLO⟩b', 'abcd…')
    """
    text = "" if value is None else _CONTROL.sub(lambda m: f"⟨{_short(m.group(0))}⟩", str(value))
    text = text.replace("\n", " ").replace("\r", " ").replace("\t", " ")
    if width is not None and len(text) > width:
        text = text[: max(width - 1, 0)] + "…"
    return text


def attr_text(value: Any, limit: int = 300) -> str:
    """A value for an HTML attribute (a tooltip): plain text, escaped with quotes.

    Examples
    --------
    >>> attr_text('say "hi"\\u202e')
    'say &quot;hi&quot;⟨RLO⟩'
    """
    return html.escape(plain_label(value, width=limit), quote=True)


def percent(value: Any, digits: int = 1) -> str:
    """A metric (a fraction) in percent points; an en dash when there is none.

    Examples
    --------
    >>> percent(0.857142), percent(float("nan")), percent(None)
    ('85.7', '–', '–')
    """
    if value is None or value is pd.NA:
        return "–"
    value = float(value)
    return "–" if math.isnan(value) else f"{100 * value:.{digits}f}"
