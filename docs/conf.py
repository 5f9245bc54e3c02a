"""Sphinx configuration of the sgr-kit manual (``make docs``; built offline, warnings are errors)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import sgr_kit  # noqa: E402
from sgr_kit.cli import skip_unused_imports  # noqa: E402

skip_unused_imports()  # as sgr-kit's commands do (myst-nb imports nbformat): a second less per build

project = "sgr-kit"
author = "the sgr-kit authors"
copyright = "the sgr-kit authors"  # noqa: A001
release = version = sgr_kit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "apipages",  # docs/_ext/apipages.py: the API reference's pages, from every module's __all__
]

# Pages: MyST Markdown (.md), the generated API pages (.rst) and the report's notebooks
# (docs/notebooks is a link to the top-level notebooks/ folder: one copy of each notebook).
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints", "notebooks/__pycache__"]
root_doc = "index"
suppress_warnings: list[str] = []

# Every reference must resolve; a broken one fails the build (-W). Only types of other
# libraries are exempt: their inventories (intersphinx) would be fetched from the network,
# and the manual builds offline.
nitpicky = True
nitpick_ignore_regex = [
    # Types and functions of other libraries and of Python's standard library.
    (r"py:.*", r"(pd|pandas|np|numpy|scipy|matplotlib|mpl|plt|ipywidgets|widgets|anywidget|pyarrow|pa|"
               r"huggingface_hub|filelock|t|typing|fractions|decimal|random|html|json|argparse|importlib|str|os|pathlib|"
               r"sys|queue|contextvars|ipaddress|ada_url|inspect_ai|mcp|pydantic|httpx|subprocess)(\..*)?"),
    (r"py:class", r"(Path|PathLike)"),
    # A subscripted annotation (``Mapping[str, Any]``) that Sphinx splits at its comma.
    (r"py:.*", r".*\[.*"),
    # Private names (a leading underscore) are not part of the reference by design.
    (r"py:.*", r"sgr_kit\.(.*\.)?_[a-zA-Z].*"),
]
# Names that docstrings mention but no ``__all__`` lists (attributes set on instances,
# helpers of private classes, a module's internal classes): they are described in the
# text of their class or module, not as entries of their own.
nitpick_ignore = [
    ("py:attr", "order"), ("py:attr", "scores"), ("py:attr", "skipped"), ("py:attr", "totals"), ("py:attr", "notes"),
    ("py:meth", "release"),
    ("py:meth", "line"), ("py:meth", "finish"), ("py:func", "restore"), ("py:func", "remember"),
    ("py:class", "PageKernel"), ("py:class", "StyledTable"), ("py:class", "sgr_kit.report.notebook.StyledTable"),
    ("py:data", "PROSE_KEYS"),
]

# API reference: autodoc reads the docstrings (numpydoc sections), in source order.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
autodoc_use_type_comments = False  # annotations only: no function's source parsed again for `# type:` comments
autosummary_generate = False  # docs/_ext/apipages.py writes the pages
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False


def _numpydoc_template_once() -> None:
    """numpydoc compiles its docstring template again for each of the reference's 3,000 docstrings
    (``numpydoc.docscrape_sphinx.get_doc_object`` makes a new Jinja environment per call): compiled
    once here, the same template renders the same pages, some 2.5 s sooner per build."""
    import numpydoc.docscrape_sphinx as docscrape

    compiled: dict = {}

    class TemplateOnce(docscrape.SandboxedEnvironment):
        def get_template(self, name, *args, **kwargs):
            if name not in compiled:
                compiled[name] = super().get_template(name, *args, **kwargs)
            return compiled[name]

    docscrape.SandboxedEnvironment = TemplateOnce


_numpydoc_template_once()

# MyST: heading anchors so that pages can link to sections (`page.md#a-section`).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# Notebooks: executed at every build on the synthetic demo (their parameters default to
# it); a cell that fails fails the build.
nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
# Each notebook runs in a temporary folder: what it writes (figures, tables, an annotator's
# label file) never lands in the checkout.
nb_execution_in_temp = True
nb_merge_streams = True
# Loading notes on stderr name the task files by the absolute path of the machine that
# builds the manual; the pages show the notebooks' results, not those notes.
nb_output_stderr = "remove"
# A build may take the notebook pages as a report already ran them: SGR_KIT_DOCS_EXECUTED names
# a report folder (its saved NN_name.ipynb pages, sgr-kit report's output; pages it has not, as
# the explorer and the annotator, are run as always). The test suite builds
# the manual so from the demo report it built, instead of running every notebook a second time;
# `make docs` runs them.
_EXECUTED = os.environ.get("SGR_KIT_DOCS_EXECUTED")
if _EXECUTED:
    nb_execution_mode = "off"


def _executed_page(app, docname, source):
    if not _EXECUTED or not docname.startswith("notebooks/"):
        return
    page = Path(_EXECUTED) / f"{docname.split('/', 1)[1]}.ipynb"
    if page.is_file():
        source[0] = page.read_text(encoding="utf-8")
    else:  # not a report page (the explorer, the annotator): run here, as always
        notebook = json.loads(source[0])
        notebook.setdefault("metadata", {}).setdefault("mystnb", {})["execution_mode"] = "force"
        source[0] = json.dumps(notebook)


# Offline: no widget manager loaded from a CDN. Widgets are shown by the plain view their
# notebooks keep for copies without a kernel.
nb_ipywidgets_js: dict = {}

html_theme = "pydata_sphinx_theme"
html_title = f"sgr-kit {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "icon_links": [],
    # The theme renders every sidebar template once more per page only to drop those that come
    # out empty; the manual's contents never is.
    "templates_skip_empty_check": ["manual-toc.html", "sidebar-nav-bs.html", "navbar-nav.html"],
}
# The primary sidebar shows the whole manual (docs/_templates/manual-toc.html): the theme's
# "Section Navigation" lists only pages nested under the current top-level page, and every
# page here is a top-level one, so it was empty.
templates_path = ["_templates"]
html_sidebars = {"**": ["manual-toc.html"]}
# Long lines (API signatures, wide code examples) wrap or scroll inside the text column instead
# of being cut at its edge (docs/_static/manual.css).
html_static_path = ["_static"]
html_css_files = ["manual.css"]
html_show_sourcelink = False
html_copy_source = False

# Offline: formulas are shown as their LaTeX source instead of loading MathJax from a CDN
# (one docstring holds a formula; MathJax is not bundled).
html_math_renderer = "source"


def _math_inline(self, node):
    from docutils import nodes
    from html import escape

    self.body.append(f'<code class="math">{escape(node.astext())}</code>')
    raise nodes.SkipNode


def _math_block(self, node):
    from docutils import nodes
    from html import escape

    self.body.append(f'<pre class="math">{escape(node.astext())}</pre>\n')
    raise nodes.SkipNode


def setup(app):
    app.connect("source-read", _executed_page)
    app.add_html_math_renderer("source", inline_renderers=(_math_inline, None), block_renderers=(_math_block, None))
