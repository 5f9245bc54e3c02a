"""Auditing failures: annotators' label files, their agreement, adjudication.

- :mod:`~sgr_kit.annotate.store`: one annotator's label file, written whole and atomically
  at every label under a file lock (:class:`LabelStore`, :func:`open_labels`), read back with
  checks (:func:`load_labels`), where to resume (:func:`first_unlabelled`);
- :mod:`~sgr_kit.annotate.known`: the answers that may be labelled (a sheet or scores table)
  and the check of labels against them (:func:`check_labels`);
- :mod:`~sgr_kit.annotate.widget`: label answers one at a time in JupyterLab
  (:func:`annotate`; :func:`annotate_files` opens it from the files notebook 08 names), with
  :mod:`~sgr_kit.annotate.view` (the label set with the definitions of Appendix G, the
  widget's HTML) and :mod:`~sgr_kit.annotate.keys` (the keyboard shortcuts);
- :func:`agreement` and its companions (from :mod:`sgr_kit.stats.agreement`): percent
  agreement, Cohen's kappa per pair, Fleiss' kappa and Krippendorff's alpha with bootstrap
  intervals over tasks, confusion matrices, per-category agreement;
- :mod:`~sgr_kit.annotate.adjudicate`: the disagreements between label files, the final
  audit-label file the report reads, and an ipywidgets view to decide each disagreement.

The sample to label is drawn by :func:`sgr_kit.stats.sample.audit_sample`
(``sgr-kit sample``).
"""

from ..load.labels import load_sheet
from ..stats.agreement import (
    agreement,
    category_agreement,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    krippendorff_alpha,
)
from .adjudicate import AdjudicationView, Adjudication, adjudicate, disagreements, write_final_labels
from .known import KnownAnswers, check_labels, known_answers
from .store import LabelStore, first_unlabelled, load_labels, open_labels, write_label_file
from .inputs import annotate_files
from .tables import agreement_tables
from .view import DEFINITIONS, LABEL_NAMES, LABELS, RULE
from .widget import Annotator, annotate

__all__ = [
    "agreement", "category_agreement", "confusion_matrix", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha",
    "disagreements", "adjudicate", "Adjudication", "write_final_labels", "AdjudicationView",
    "agreement_tables", "KnownAnswers", "known_answers", "check_labels", "LabelStore", "open_labels", "load_labels", "load_sheet", "write_label_file", "first_unlabelled",
    "annotate", "annotate_files", "Annotator", "LABELS", "LABEL_NAMES", "DEFINITIONS", "RULE"]
