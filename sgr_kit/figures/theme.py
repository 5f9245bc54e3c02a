"""One look for every figure: theme, palettes, labels, the synthetic-data mark, and saving.

- :func:`set_theme` sets fonts, sizes and colours for a paper column (about 3.3 in
  wide, 7-8 pt text) or a slide;
- the palettes are colour-blind safe: Okabe and Ito's eight colours for categories
  (error types, causes of lost points, metrics), ``cividis`` for scores and
  seaborn's ``vlag`` for signed differences;
- :func:`mark_synthetic` writes "SYNTHETIC DATA" across an axes: every figure drawn
  from simulated data carries it;
- :func:`save_figure` writes PNG (for HTML) and SVG or PDF (for papers) with fixed
  metadata, so that rebuilding an unchanged figure gives the same bytes and leaves
  the file untouched.

References
----------
Okabe, M. and Ito, K. (2008). Color Universal Design (CUD): how to make figures and
presentations that are friendly to colorblind people. https://jfly.uni-koeln.de/color/
Nuñez, J. R., Anderton, C. R. and Renslow, R. S. (2018). Optimizing colormaps with
consideration for color vision deficiency (cividis). *PLOS ONE* 13(7): e0199239.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Iterable, Mapping

import matplotlib as mpl
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.font_manager import FontProperties
from matplotlib.figure import Figure

from ..errors import SgrKitError
from ..output import write_bytes
from ..schema import is_synthetic
from ..text import figure_label
from ..reference import ERROR_LABELS, FAMILY_LABELS, SYSTEM_LABELS

__all__ = [
    "COLUMN_WIDTH", "TEXT_WIDTH", "SLIDE_WIDTH", "CONTEXTS", "OKABE_ITO", "METRIC_COLORS", "ERROR_COLORS",
    "CAUSE_COLORS", "SCORE_CMAP", "DIFF_CMAP", "SYNTHETIC_TEXT", "SYNTHETIC_GID", "theme_rc", "set_theme",
    "short_system", "short_family", "short_error", "cause_label", "drawn_from_synthetic", "mark_synthetic",
    "note_synthetic", "save_figure",
]  # fmt: skip

#: Width of a paper column, of the full text block, and of a 16:9 slide's plot area (inches).
COLUMN_WIDTH = 3.3
TEXT_WIDTH = 6.9
SLIDE_WIDTH = 10.0
#: Contexts of :func:`set_theme`.
CONTEXTS: tuple[str, ...] = ("paper", "slide")

#: Okabe and Ito's colour-blind-safe palette.
OKABE_ITO: dict[str, str] = {
    "orange": "#E69F00", "sky blue": "#56B4E9", "bluish green": "#009E73", "yellow": "#F0E442",
    "blue": "#0072B2", "vermillion": "#D55E00", "reddish purple": "#CC79A7", "black": "#000000",
}  # fmt: skip
#: Colour per metric.
METRIC_COLORS: dict[str, str] = {"item_f1": OKABE_ITO["blue"], "row_f1": OKABE_ITO["orange"],
                                 "poa": OKABE_ITO["bluish green"]}  # fmt: skip
#: Colour per audit label (the six error types of Appendix G, then ``correct``).
ERROR_COLORS: dict[str, str] = {
    "scope_drift": OKABE_ITO["vermillion"], "criterion_mismatch": OKABE_ITO["blue"],
    "intent_rewriting": OKABE_ITO["reddish purple"], "page_misreading": OKABE_ITO["orange"],
    "dependency_error": OKABE_ITO["sky blue"], "final_answer": OKABE_ITO["bluish green"], "correct": "#999999",
}  # fmt: skip
#: Colour per cause of lost Item-F1 points (:data:`sgr_kit.breakdowns.CAUSES`), and for the points kept.
CAUSE_COLORS: dict[str, str] = {
    "kept": "#D9D9D9", "wrong": OKABE_ITO["vermillion"], "missing": OKABE_ITO["orange"],
    "omitted_row": OKABE_ITO["blue"], "extra_row": OKABE_ITO["sky blue"], "duplicate_row": OKABE_ITO["reddish purple"],
    "extra_cell": OKABE_ITO["yellow"], "failed": OKABE_ITO["black"],
}  # fmt: skip
#: Colour maps: scores in [0, 100] and signed differences.
SCORE_CMAP = "cividis"
DIFF_CMAP = "vlag"
#: The mark of a figure drawn from simulated data, and the gid of its text artist.
SYNTHETIC_TEXT = "SYNTHETIC DATA"
SYNTHETIC_GID = "sgr-kit-synthetic"

_SIZES = {"paper": (7.0, 6.5, 6.0), "slide": (16.0, 14.0, 13.0)}  # label/title, ticks, legend (pt)
_SHORT_SYSTEMS = {
    **{system: label for label, system in SYSTEM_LABELS.items()},
    "Gemini Deep Research": "Gemini DR", "Google Search AI Mode": "Google AI Mode",
    "OpenAI Deep Research": "OpenAI DR",
}  # fmt: skip
_SHORT_FAMILIES = {
    **{family: label for label, family in FAMILY_LABELS.items()}, "vulnerability databases": "Vulnerability",
}
_SHORT_ERRORS = {
    "scope_drift": "Scope drift", "criterion_mismatch": "Criterion mis.", "intent_rewriting": "Intent rewr.",
    "page_misreading": "Page misread.", "dependency_error": "Dependency err.", "final_answer": "Final answer",
    "correct": "Correct",
}  # fmt: skip
_CAUSE_LABELS = {
    "kept": "Item-F1 (kept)", "wrong": "wrong value", "missing": "missing cell", "omitted_row": "omitted row",
    "extra_row": "extra row", "duplicate_row": "duplicate row", "extra_cell": "extra cell", "failed": "failed answer",
}  # fmt: skip
_FORMATS = ("png", "svg", "pdf")
#: Metadata that would change between builds (dates, versions), removed from every file.
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
             "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}}  # fmt: skip
_SAVE_RC = {"svg.hashsalt": "sgr-kit", "svg.fonttype": "path", "pdf.fonttype": 42}


def theme_rc(context: str = "paper") -> dict[str, object]:
    """The rcParams of the theme for ``context`` (``"paper"`` or ``"slide"``).

    Examples
    --------
    >>> theme_rc()["font.size"], theme_rc("slide")["font.size"]
    (7.0, 16.0)
    """
    if context not in CONTEXTS:
        raise SgrKitError(f"context must be one of {', '.join(map(repr, CONTEXTS))}; found {context!r}")
    label, ticks, legend = _SIZES[context]
    line = 0.8 if context == "paper" else 1.5
    return {
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica", "sans-serif"],
        "font.size": label, "axes.titlesize": label, "axes.labelsize": label, "figure.titlesize": label,
        "xtick.labelsize": ticks, "ytick.labelsize": ticks, "legend.fontsize": legend,
        "legend.title_fontsize": legend, "legend.frameon": False,
        "axes.linewidth": line * 0.8, "lines.linewidth": line * 1.2,
        "lines.markersize": 4.0 if context == "paper" else 8.0,
        "xtick.major.width": line * 0.8, "ytick.major.width": line * 0.8,
        "xtick.major.size": 2.5 if context == "paper" else 5.0, "ytick.major.size": 2.5 if context == "paper" else 5.0,
        "axes.spines.top": False, "axes.spines.right": False, "axes.titleweight": "bold",
        "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO.values())),
        "image.cmap": SCORE_CMAP, "figure.dpi": 150, "savefig.dpi": 300,
        "figure.constrained_layout.h_pad": 0.02, "figure.constrained_layout.w_pad": 0.02,
    }  # fmt: skip


def set_theme(context: str = "paper", *, rc: Mapping[str, object] | None = None) -> None:
    """Set the theme of sgr-kit's figures (seaborn's ``ticks`` style, the sizes of ``context``).

    Parameters
    ----------
    context : {"paper", "slide"}, default "paper"
        ``paper``: 7 pt labels and 6-6.5 pt ticks, for figures 3.3 in (one column) or
        6.9 in (the text block) wide; ``slide``: 13-16 pt, for figures about 10 in wide.
    rc : mapping, optional
        rcParams to set on top (a user's restyling).

    Examples
    --------
    >>> set_theme()
    >>> import matplotlib
    >>> matplotlib.rcParams["font.size"]
    7.0
    """
    sns.set_theme(style="ticks", rc={**theme_rc(context), **dict(rc or {})})


def short_system(system: str) -> str:
    """The short label of a system (Table 4's labels; others shown safely).

    Any other name is a label of at most :data:`sgr_kit.text.LABEL_WIDTH` characters (cut with
    an ellipsis), with control characters made visible and ``$`` escaped
    (:func:`sgr_kit.text.figure_label`): no name can grow a figure or be read as mathtext.

    Examples
    --------
    >>> short_system("DeepSeek V4 Pro"), short_system("my-agent"), short_system("Agent $x$")
    ('DS V4 Pro', 'my-agent', 'Agent \\\\$x\\\\$')
    >>> len(short_system("x" * 5000))
    40
    """
    return _SHORT_SYSTEMS.get(system) or figure_label(system)


def short_family(family: str) -> str:
    """The short label of a source family (Table 5's labels).

    Examples
    --------
    >>> short_family("official statistics")
    'Official stats'
    """
    return _SHORT_FAMILIES.get(family, family)


def short_error(label: str, *, long: bool = False) -> str:
    """The label of an audit label: short (for ticks) or as the paper prints it (``long=True``).

    Examples
    --------
    >>> short_error("criterion_mismatch"), short_error("criterion_mismatch", long=True)
    ('Criterion mis.', 'Criterion Mismatch')
    """
    if long:
        return {**ERROR_LABELS, "correct": "Correct"}.get(label, label)
    return _SHORT_ERRORS.get(label, label)


def cause_label(cause: str) -> str:
    """The legend label of a cause of lost points.

    Examples
    --------
    >>> cause_label("omitted_row")
    'omitted row'
    """
    return _CAUSE_LABELS.get(cause, cause)


def drawn_from_synthetic(table: pd.DataFrame | None, synthetic: bool | None = None) -> bool:
    """Whether a figure is drawn from synthetic data: ``synthetic`` if given, else the table's ``synthetic`` column.

    Examples
    --------
    >>> drawn_from_synthetic(pd.DataFrame({"synthetic": [False, True]})), drawn_from_synthetic(pd.DataFrame({"x": [1]}))
    (True, False)
    >>> drawn_from_synthetic(pd.DataFrame({"synthetic": [True]}), synthetic=False)
    False
    """
    return bool(synthetic) if synthetic is not None else is_synthetic(table)


def mark_synthetic(ax: Axes, synthetic: bool = True) -> Axes:
    """Write "SYNTHETIC DATA" across ``ax`` (once) when ``synthetic`` is true.

    The text is large, red, partly transparent and drawn above the data, inside
    the axes (so it is neither missed nor cropped away with a legend or title);
    its artist has the gid :data:`SYNTHETIC_GID`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> [t.get_text() for t in mark_synthetic(ax).texts]
    ['SYNTHETIC DATA']
    >>> plt.close(fig)
    """
    if not synthetic or any(t.get_gid() == SYNTHETIC_GID for t in ax.texts):
        return ax
    box = ax.get_window_extent()
    across = min(box.width, 2.2 * box.height) / ax.figure.dpi * 72  # points the text may span
    text = FontProperties(size=mpl.rcParams["font.size"]).get_size_in_points()
    size = min(max(0.75 * across / (0.68 * len(SYNTHETIC_TEXT)), text), 4.0 * text)
    ax.text(
        0.5, 0.5, SYNTHETIC_TEXT, transform=ax.transAxes, ha="center", va="center", rotation=20,
        fontsize=size, fontweight="bold", color="#C0392B", alpha=0.3, zorder=100, gid=SYNTHETIC_GID,
        in_layout=False, clip_on=True,
    )  # fmt: skip
    return ax


def note_synthetic(fig: Figure, synthetic: bool = True) -> Figure:
    """Add a figure title saying the data are synthetic (for figure-level helpers).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> note_synthetic(plt.figure()).get_suptitle()
    'SYNTHETIC DATA (simulated answers)'
    >>> plt.close("all")
    """
    if synthetic:
        fig.suptitle(f"{SYNTHETIC_TEXT} (simulated answers)", color="#C0392B",
                     fontweight="bold", fontsize=mpl.rcParams["font.size"], gid=SYNTHETIC_GID)  # fmt: skip
    return fig


def _write_if_changed(path: Path, data: bytes) -> None:
    if not (path.is_file() and path.read_bytes() == data):  # an unchanged figure keeps its file untouched
        write_bytes(data, path, force=True)


_HASHED_ID = re.compile(rb'id="([a-z]+)([0-9a-f]{10})"')


def _numbered_ids(svg: bytes) -> bytes:
    """``svg`` with matplotlib's hashed element ids (``p1a2b3c4d5e``: clip paths, markers) numbered in order.

    Examples
    --------
    >>> _numbered_ids(b'<clipPath id="p0123456789"/><g clip-path="url(#p0123456789)"/><use xlink:href="#mabcdef0123"/>'
    ...               b'<path id="mabcdef0123"/>')
    b'<clipPath id="p1"/><g clip-path="url(#p1)"/><use xlink:href="#m2"/><path id="m2"/>'
    """
    found = list(dict.fromkeys(m.group(1) + m.group(2) for m in _HASHED_ID.finditer(svg)))
    if not found:
        return svg
    names = {old: f"{old[:-10].decode()}{i}".encode() for i, old in enumerate(found, 1)}
    pattern = re.compile(rb"(?<=[\"#])(" + b"|".join(re.escape(k) for k in names) + rb")(?=[\")])")
    return pattern.sub(lambda m: names[m.group(1)], svg)


def save_figure(
    fig: Figure,
    path: str | Path,
    *,
    formats: Iterable[str] = ("png", "svg"),
    dpi: int = 300,
) -> tuple[Path, ...]:
    """Save ``fig`` once per format, with fixed metadata, only rewriting files whose bytes change.

    Parameters
    ----------
    fig : Figure
    path : str or Path
        The file name without suffix (a suffix among ``formats`` is dropped):
        ``figures/fig3`` gives ``figures/fig3.png`` and ``figures/fig3.svg``.
    formats : iterable of {"png", "svg", "pdf"}, default ("png", "svg")
    dpi : int, default 300
        Resolution of the PNG.

    Returns
    -------
    tuple of Path
        The files, in the order of ``formats``.

    Notes
    -----
    Dates, software versions and creators are left out of every file
    (``metadata=None`` values), SVG element ids are drawn from the fixed salt
    ``svg.hashsalt`` and then numbered in order of appearance (matplotlib hashes a clip
    rectangle's coordinates at full precision, so a layout that differs in the 13th digit on
    another machine would change every id while the drawing is the same), and text is drawn as paths (SVG) or embedded TrueType (PDF),
    so that the same figure gives the same bytes on every build. A constrained
    layout is computed once and then frozen (the figure's layout engine is removed, or set to
    ``"none"`` where the rcParams ask for a layout): matplotlib's constrained layout may move
    axes slightly on every draw, which would make two saves of one figure differ, and a figure
    without an engine is drawn once per file, not laid out again first. Each file is written to
    a temporary file and renamed; a file whose bytes did not change is not touched.

    Examples
    --------
    >>> import tempfile, matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 1.5))
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> files = save_figure(fig, Path(tempfile.mkdtemp()) / "line.png")
    >>> [f.name for f in files]
    ['line.png', 'line.svg']
    >>> plt.close(fig)
    """
    formats = tuple(formats)
    unknown = [f for f in formats if f not in _FORMATS]
    if unknown or not formats:
        found = ", ".join(map(repr, formats)) or "none"
        raise SgrKitError(f"formats must be some of {', '.join(_FORMATS)}; found {found}")
    if not isinstance(fig, Figure):
        raise SgrKitError(f"save_figure: expected a matplotlib Figure, found {type(fig).__name__}")
    if fig.get_layout_engine() is not None and fig.get_layout_engine().adjust_compatible is False:
        fig.draw_without_rendering()  # lay the figure out once, then keep that layout
        # no layout engine left (where the rcParams ask for none): matplotlib then draws each file once, without
        # the layout pass it runs before saving a figure that has an engine, even a placeholder that moves nothing
        layouts = mpl.rcParams["figure.autolayout"] or mpl.rcParams["figure.constrained_layout.use"]
        fig.set_layout_engine("none" if layouts else None)
    path = Path(path)
    if path.suffix.lstrip(".").lower() in _FORMATS:
        path = path.with_suffix("")
    written = []
    for fmt in formats:
        target = path.with_name(f"{path.name}.{fmt}")
        buffer = io.BytesIO()
        with mpl.rc_context(_SAVE_RC):
            fig.savefig(buffer, format=fmt, dpi=dpi, metadata=_METADATA[fmt])
        data = buffer.getvalue()
        _write_if_changed(target, _numbered_ids(data) if fmt == "svg" else data)
        written.append(target)
    return tuple(written)
