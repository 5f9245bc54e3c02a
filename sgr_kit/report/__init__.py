"""The report layer: text summaries and the notebook report build.

- :mod:`.summary`: per-system means beside the paper's Tables 2 and 3, as a table and as text;
- :mod:`.parameters`: the notebooks' parameters, defined once; ``-p`` values read as data and checked;
- :mod:`.build`: ``sgr-kit report``: score once, run the analysis notebooks shipped with the
  package through papermill, export offline HTML pages and the tables; it runs a build with
  :mod:`.plan` (the options checked, the notebooks, which are the report's own),
  :mod:`.provenance` (inputs' hashes, the scoring key, versions), :mod:`.pages` (the page
  threads and papermill runs), :mod:`.kernels` (kernels kept and restored between pages, and between builds when asked:
  :func:`keep_kernels`),
  :mod:`.html` (offline pages) and :mod:`.folder` (what ``--force`` may replace, the folder
  claimed for the build, and moving the finished build into place).
"""

from __future__ import annotations

from .build import NOTEBOOKS, build_report, export_html, notebook_parameters, run_notebook
from .kernels import keep_kernels
from .summary import format_summary, summary_table

__all__ = ["NOTEBOOKS", "build_report", "export_html", "format_summary", "keep_kernels", "notebook_parameters",
           "run_notebook", "summary_table"]
