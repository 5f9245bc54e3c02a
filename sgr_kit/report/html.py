"""A report page: an executed notebook exported as a standalone HTML page that loads nothing from the network."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from ..output import write_text
from ..resources import templates_dir
from ..text import NAME_WIDTH, short_label, visible

__all__ = ["export_html"]


def export_html(executed: str | os.PathLike, html: str | os.PathLike, *, long_names: Sequence[str] = ()) -> Path:
    """Convert an executed notebook to a standalone HTML page that loads nothing from the network.

    Code cells are hidden; the page uses the ``sgr_offline`` template (JupyterLab's
    look without the CDN scripts for require.js, MathJax, Mermaid and widgets). Control
    characters, ANSI escapes and direction controls in what a cell printed or displayed (a
    system name, an answer) are shown as markers (:func:`sgr_kit.text.visible`); a failing
    cell's traceback keeps its colours. Each of ``long_names`` (names from data longer than
    :data:`sgr_kit.text.NAME_WIDTH`) is shown cut with an ellipsis wherever a cell printed it.
    """
    import html as markup

    import nbformat

    exporter = _exporter()

    cuts = []
    for name in sorted(set(long_names), key=len, reverse=True):
        short = short_label(name, width=NAME_WIDTH)
        cuts += [(name, short), (markup.escape(name, quote=False), markup.escape(short, quote=False)),
                 (markup.escape(name), markup.escape(short))]

    def shown(text: str) -> str:
        for name, short in cuts:
            text = text.replace(name, short)
        return visible(text)

    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:  # names printed or shown by a cell: cut, control characters and ANSI escapes made visible
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output["text"] = shown(output.get("text", ""))
            elif output.get("output_type") in ("display_data", "execute_result"):
                data = output.get("data", {})
                for kind in ("text/plain", "text/html", "text/markdown"):
                    if isinstance(data.get(kind), str):
                        data[kind] = shown(data[kind])
    body, _ = exporter.from_notebook_node(nb)
    return write_text(body, html, force=True)


_EXPORTER: list = []

#: What nbconvert's HTMLExporter writes as an image's text where the image has none.
NO_ALT = "No description has been provided for this image"

_RAW = re.compile(r"(<!--.*?-->|<(script|style|textarea|title)\b.*?</\2\s*>)", re.S | re.I)
_TAG = re.compile(r"<(img|div)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.I)
_ATTRIBUTE = re.compile(r"\s*([^\s=/>\"']+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>\"']+))?")
_FOCUSABLE = {"jp-Cell-inputWrapper", "jp-OutputArea-output"}


def _accessible(page: str) -> str:
    """What nbconvert's HTMLExporter adds to a page with BeautifulSoup, added to the page's text instead:
    ``alt`` text on every image without one, and ``tabindex="0"`` on every cell input and output (so that
    keyboard users reach them). The same document, read by an HTML parser (comments, scripts, styles and
    text areas left as they are), without parsing and writing the whole page again (1.2 s of processor
    time for the demo report's eight pages).
    """
    def tag(match: re.Match) -> str:
        name, attributes = match.group(1), match.group(2)
        parsed = [(m.group(1).lower(), m) for m in _ATTRIBUTE.finditer(attributes)]
        found = dict(parsed)
        if name.lower() == "img":
            return match.group(0) if "alt" in found else f'<{name} alt="{NO_ALT}"{attributes}>'
        value = found["class"].group(2) or "" if "class" in found else ""
        if _FOCUSABLE.isdisjoint(value.strip("\"'").split()):
            return match.group(0)
        kept = "".join(m.group(0) for key, m in parsed if key != "tabindex")
        closing = "/" if attributes.rstrip().endswith("/") else ""  # <div .../>: an empty element, to a parser
        return f'<{name}{kept.rstrip()} tabindex="0"{closing}>'

    parts = _RAW.split(page)
    # split keeps each raw region (group 1) and its tag name (group 2): every third piece is markup
    return "".join(_TAG.sub(tag, piece) if i % 3 == 0 else (piece if i % 3 == 1 else "")
                   for i, piece in enumerate(parts))


def _exporter():
    """The HTML exporter, built once per process (loading its templates costs more than a page's export)."""
    if not _EXPORTER:
        from nbconvert import HTMLExporter
        from nbconvert.exporters.templateexporter import TemplateExporter
        from nbconvert.filters.highlight import Highlight2HTML
        from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

        class OfflineExporter(HTMLExporter):
            """HTMLExporter's page, its accessibility attributes added by :func:`_accessible` (nbconvert parses
            the whole page with BeautifulSoup for them: half of a page's export). The steps before that are
            HTMLExporter's own; ``tests/test_report_html.py`` checks the result is the same document."""

            def from_notebook_node(self, nb, resources=None, **kw):
                language = nb.metadata.get("language_info", {})
                lexer = language.get("pygments_lexer", language.get("name", None))
                self.register_filter("highlight_code",
                                     self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
                resources = self._init_resources(resources)
                self.register_filter("filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata,
                                                                               parent=self, resources=resources))
                page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
                return _accessible(page), resources

        exporter = _configured(OfflineExporter)
        if not all(hasattr(exporter, name) for name in ("_nb_metadata", "_init_resources")):
            exporter = _configured(HTMLExporter)  # an nbconvert whose exporter is built otherwise: its own steps
        _EXPORTER.append(exporter)
    return _EXPORTER[0]


def _configured(exporter_class):
    """An ``exporter_class`` (nbconvert's HTMLExporter or a subclass) with the report's template, no inputs, no prompts."""
    exporter = exporter_class(template_name="sgr_offline", extra_template_basedirs=[str(templates_dir())])
    exporter.exclude_input = exporter.exclude_input_prompt = exporter.exclude_output_prompt = True
    return exporter
