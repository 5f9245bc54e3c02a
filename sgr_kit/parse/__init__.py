"""Parse answer texts into rows of raw cells.

:func:`parse_answer` dispatches on the scoring profile: ``"strict"`` uses the
benchmark's own line parser (:func:`sgr_kit.parse.strict.parse_strict`);
``"paper"`` uses the tolerant parser of :mod:`sgr_kit.parse.paper` (Markdown,
TSV, CSV, HTML and JSON tables, mapped to the schema's column order by header).
The reference answer is parsed with the same routine as the answers.
"""

from __future__ import annotations

import importlib
import importlib.util

from ..errors import SgrKitError
from ..schema import check_profile
from ..types import ParsedTable, Schema
from .strict import parse_strict

__all__ = ["parse_answer", "parse_strict"]


def _paper_parser():
    # The paper profile's parser is optional: without it the strict parser is used.
    # When the module exists, its own import errors are not hidden.
    if importlib.util.find_spec(f"{__name__}.paper") is None:
        return None
    return importlib.import_module(f"{__name__}.paper").parse_paper


def parse_answer(text: str, schema: Schema, *, profile: str = "paper") -> ParsedTable:
    """Parse an answer text under a scoring profile.

    Parameters
    ----------
    text : str
        The raw answer text.
    schema : Schema
        The task's schema.
    profile : {"paper", "strict"}, default "paper"

    Returns
    -------
    ParsedTable
        Status ``parsed``, ``empty`` or ``parse_failure`` (with a reason).

    Examples
    --------
    >>> schema = Schema(columns=("id", "n"), row_key=("id",))
    >>> parse_answer("| id | n |\\n|---|---|\\n| a | 1 |", schema, profile="strict").rows
    (('a', '1'),)
    >>> parse_answer("NONE", schema).status
    'empty'
    """
    check_profile(profile)
    if not isinstance(schema, Schema):
        raise SgrKitError(f"expected a Schema, found {type(schema).__name__}")
    if not isinstance(text, str):
        raise SgrKitError(f"answer text: expected str, found {type(text).__name__}")
    if profile == "paper":
        parse_paper = _paper_parser()
        if parse_paper is not None:
            return parse_paper(text, schema)
    return parse_strict(text, schema)
