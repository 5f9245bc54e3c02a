"""Names from data shown safely: on a terminal, in HTML, in LaTeX and in figures.

System names and task ids come from users' files and may hold anything: ANSI escape
sequences, right-to-left overrides, zero-width characters, ``$...$`` (which matplotlib reads
as mathematics) or five thousand characters. Every place that shows one goes through this
module:

- :func:`visible` makes invisible and control characters visible as markers (``⟨RLO⟩``,
  ``⟨U+001B⟩``), so a name can neither rewrite the terminal nor reverse a page;
- :func:`short_label` also cuts a name to a fixed width with an ellipsis, so no name can
  grow a figure, a table or a page;
- :func:`name_html` is :func:`short_label` escaped for a web page, in ``<bdi>`` with the longer
  name as its tooltip;
- :func:`figure_label` is :func:`short_label` with ``$`` escaped, so matplotlib never reads
  a name as mathtext.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

__all__ = ["CONTROL", "fixed", "LABEL_WIDTH", "NAME_WIDTH", "control_name", "visible", "visible_repr", "short_label",
           "figure_label", "name_html"]

#: Invisible characters shown as markers: bidirectional controls, zero-width space, BOM and C0/C1
#: controls other than tab and newline.
CONTROL = re.compile("[\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SHORT = {
    "\u061c": "ALM", "\u200b": "ZWSP", "\u200e": "LRM", "\u200f": "RLM", "\u202a": "LRE", "\u202b": "RLE",
    "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO", "\u2066": "LRI", "\u2067": "RLI", "\u2068": "FSI",
    "\u2069": "PDI", "\ufeff": "BOM",
}  # fmt: skip
#: Characters a name gets in a figure label or a terminal table before it is cut with "…".
LABEL_WIDTH = 40
#: Characters of a name shown in a page's table cell (the full name, up to 300 characters, on hover).
NAME_WIDTH = 60


def control_name(char: str) -> str:
    """The marker text of an invisible character: ``RLO``, ``ZWSP``, ``U+001B``.

    Examples
    --------
    >>> control_name("\\u202e"), control_name("\\x1b")
    ('RLO', 'U+001B')
    """
    return _SHORT.get(char, f"U+{ord(char):04X}")


def visible(value: Any, *, newlines: bool = True) -> str:
    """``value`` as text with every invisible or control character shown as a marker.

    Parameters
    ----------
    value : object
        Shown with ``str``; None shows as nothing.
    newlines : bool, default True
        Keep newlines, carriage returns and tabs (for multi-line text such as a report);
        False turns them into spaces (for a name on one line).

    Examples
    --------
    >>> visible("Agent\\x1b[31m red\\u202eevil")
    'Agent⟨U+001B⟩[31m red⟨RLO⟩evil'
    >>> visible("a\\nb", newlines=False)
    'a b'
    """
    text = "" if value is None else str(value)
    text = CONTROL.sub(lambda m: f"⟨{control_name(m.group(0))}⟩", text)
    if not newlines:
        return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " ")
    return text.replace("\r\n", "\n").replace("\r", "⟨CR⟩")


def visible_repr(value: Any) -> str:
    """``repr(value)`` with invisible characters shown as markers (for error messages).

    Examples
    --------
    >>> print(visible_repr("a\\u202eb"))
    'a\\u202eb'
    """
    return visible(repr(value))


def short_label(value: Any, *, width: int = LABEL_WIDTH) -> str:
    """A name on one line, controls visible, cut to ``width`` characters with an ellipsis.

    Examples
    --------
    >>> short_label("x" * 5000) == "x" * 39 + "…"
    True
    >>> short_label(float("nan")), short_label("GPT-5.5")
    ('', 'GPT-5.5')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    text = visible(value, newlines=False)
    if width is not None and len(text) > width:
        text = text[: max(width - 1, 0)] + "…"
    return text


def figure_label(value: Any, *, width: int = LABEL_WIDTH) -> str:
    """:func:`short_label` with ``$`` escaped: matplotlib shows the name, never reads it as mathtext.

    Examples
    --------
    >>> figure_label("Agent $\\\\frac$ v2")
    'Agent \\\\$\\\\frac\\\\$ v2'
    """
    return short_label(value, width=width).replace("$", r"\$")


def name_html(value: Any, *, width: int = NAME_WIDTH) -> str:
    """A name in a web page: escaped, controls visible, cut with an ellipsis, in ``<bdi>`` (longer name on hover).

    Examples
    --------
    >>> name_html("<b>A</b>\u202e")
    '<bdi title="&lt;b&gt;A&lt;/b&gt;⟨RLO⟩">&lt;b&gt;A&lt;/b&gt;⟨RLO⟩</bdi>'
    """
    import html

    return (f'<bdi title="{html.escape(short_label(value, width=300), quote=True)}">'
            f"{html.escape(short_label(value, width=width))}</bdi>")


def fixed(digits: int) -> Callable[[float], str]:
    """A formatter: ``digits`` decimals, and what rounds to zero without a sign ("0.00", never "-0.00").

    Examples
    --------
    >>> fixed(2)(-0.004), fixed(2)(-0.006), fixed(1)(12.34)
    ('0.00', '-0.01', '12.3')
    """
    def text(x: float) -> str:
        out = f"{x:.{digits}f}"
        return out[1:] if out.startswith("-") and float(out) == 0 else out

    return text
