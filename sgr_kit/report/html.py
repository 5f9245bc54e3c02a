"""A report page: an executed notebook exported as a standalone HTML page that loads nothing from the network."""

from __future__ import annotations

import os
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


def _exporter():
    """The HTML exporter, built once per process (loading its templates costs more than a page's export)."""
    if not _EXPORTER:
        from nbconvert import HTMLExporter

        exporter = HTMLExporter(template_name="sgr_offline", extra_template_basedirs=[str(templates_dir())])
        exporter.exclude_input = True
        exporter.exclude_input_prompt = True
        exporter.exclude_output_prompt = True
        _EXPORTER.append(exporter)
    return _EXPORTER[0]
