"""Error-type annotation of agents' answers (the paper's trajectory audit, Appendix G).

- :mod:`.widget`: label answers one at a time in JupyterLab (:func:`annotate`);
- :mod:`.view`: the label set with its definitions, and the widget's HTML;
- :mod:`.keys`: the keyboard shortcuts.
"""

from __future__ import annotations

from .view import DEFINITIONS, LABEL_NAMES, LABELS, RULE
from .widget import Annotator, annotate

__all__ = ["annotate", "Annotator", "LABELS", "LABEL_NAMES", "DEFINITIONS", "RULE"]
