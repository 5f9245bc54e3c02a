"""A report page's HTML (sgr_kit.report.html): nbconvert's HTMLExporter page, written without its second parse.

nbconvert's HTMLExporter renders a page with its templates and then parses the whole page with
BeautifulSoup to give images without one an ``alt`` text and cell inputs and outputs a
``tabindex``. sgr-kit's exporter adds those to the rendered text instead; these tests check the
result is the same document as HTMLExporter's (read by the same parser, written the same way).
"""

from __future__ import annotations

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from sgr_kit.report.build import NOTEBOOKS
from sgr_kit.report.html import NO_ALT, _accessible, _configured, _exporter


@pytest.fixture(scope="module")
def nbconvert_exporter():
    from nbconvert import HTMLExporter

    return _configured(HTMLExporter)  # nbconvert's own exporter, set up as the report's


def _same_document(notebook, nbconvert_exporter) -> None:
    ours, _ = _exporter().from_notebook_node(notebook)
    theirs, _ = nbconvert_exporter.from_notebook_node(notebook)
    assert str(BeautifulSoup(ours, features="html.parser")) == theirs


@pytest.mark.slow  # the session's demo report
@pytest.mark.parametrize("page", NOTEBOOKS)
def test_every_page_of_the_demo_report_is_the_document_nbconvert_writes(page, demo_report, nbconvert_exporter):
    _same_document(nbformat.read(demo_report / f"{page}.ipynb", as_version=4), nbconvert_exporter)


def test_images_inputs_and_outputs_of_every_kind_get_what_nbconvert_gives_them(nbconvert_exporter):
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    notebook = new_notebook(cells=[
        new_markdown_cell('An image <img src="x.png"> and one described <img alt="a chart" src="y.png">'),
        new_code_cell("x", outputs=[
            new_output("stream", name="stdout", text='<img src="z"> <div class="jp-OutputArea-output">printed</div>'),
            new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
            new_output("display_data", data={"text/html": '<div class="mine jp-OutputArea-output" tabindex="-1">'
                                                          'kept</div><div class="jp-OutputArea-outputs">not one</div>'
                                                          "<IMG SRC='w.png'><img\nsrc=\"v.png\">"
                                                          "<!-- <img src=c.png> --><style>p::after{content:'<img>'}</style>"
                                                          "<DIV TITLE='a>b' CLASS='jp-OutputArea-output'>upper</DIV>"
                                                          "<div class=jp-Cell-inputWrapper>bare</div>"
                                                          "<div class=\"jp-OutputArea-output\"/><img alt='' src=u.png>"}),
            new_output("execute_result", data={"text/plain": "42"}, execution_count=1),
        ]),
        new_code_cell("y"),
    ])
    _same_document(notebook, nbconvert_exporter)


def test_text_that_shows_a_tag_is_left_as_text():
    page = '<p>&lt;img src="x"&gt; and &lt;div class="jp-OutputArea-output"&gt;</p>'
    assert _accessible(page) == page
    assert _accessible('<img src="x">') == f'<img alt="{NO_ALT}" src="x">'
