"""The project's one error class, :class:`SgrKitError`.

Two subclasses: :class:`UnknownIdError`, also a :class:`KeyError`, for lookups of an
unknown id in a mapping; :class:`InsufficientDataError`, for valid input that holds too
little for one analysis (one system for a comparison of systems), which a report page
turns into a sentence while the rest of the page builds. Every problem with user input (a task file, a runs file, a rules file, an
option) is raised as :class:`SgrKitError`, a ``ValueError`` subclass, with a
message naming the input, what was expected, what was found and where.

The readers of user files share the checks that turn hostile values into such errors:
:func:`decode_json` (one JSON text: syntax, integers of more digits than Python reads, nesting
deeper than :data:`MAX_DEPTH`, lone surrogates replaced), :func:`decode_yaml` (one YAML document:
no anchors or aliases, so a small file stays small; nesting bounded), :func:`whole_number` (a repeat or a
slot: 0 to :data:`MAX_WHOLE`, ASCII digits only), :func:`text_value` (a name: a string, not a
list, an object or a boolean) and :func:`describe` (how a found value is shown, bounded whatever the value).
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from typing import Any, Iterable, Iterator

__all__ = [
    "MAX_DEPTH",
    "MAX_WHOLE",
    "SgrKitError",
    "UnknownIdError",
    "InsufficientDataError",
    "closest",
    "decode_json",
    "decode_yaml",
    "describe",
    "json_error",
    "text_value",
    "valid_unicode",
    "where",
    "whole_number",
]

#: The largest whole number (a repeat, a slot) read from an input file: 2**31 - 1, which every
#: table, parquet column and browser holds exactly.
MAX_WHOLE = 2**31 - 1
#: The deepest nesting of JSON lists and objects read from an input file.
MAX_DEPTH = 100


class SgrKitError(ValueError):
    """Bad input to sgr-kit: the message says which input, where, and what was expected."""


class UnknownIdError(SgrKitError, KeyError):
    """An id that is not among the loaded ones (``tasks["no_such_id"]``).

    Also a :class:`KeyError`, so that mappings keep their semantics (``in``, ``.get``);
    the message names the closest known ids.
    """

    def __str__(self) -> str:  # KeyError would print the message's repr
        return str(self.args[0]) if self.args else ""


class InsufficientDataError(SgrKitError):
    """The input is valid but too small for this analysis; the message says what it holds and what is needed.

    A report page shows the message as the reason a section is missing
    (:meth:`sgr_kit.report.notebook.Notebook.section`); everywhere else it is an ordinary
    :class:`SgrKitError`.
    """


def closest(name: str, known: Iterable[str], *, n: int = 3) -> list[str]:
    """The known ids closest to ``name`` (at most ``n``), for "did you mean" hints.

    Examples
    --------
    >>> closest("arxiv_01", ["arxiv_001", "arxiv_001-g", "census_001"])
    ['arxiv_001', 'arxiv_001-g']
    """
    return difflib.get_close_matches(str(name), sorted(map(str, known)), n=n, cutoff=0.6)


def where(path: object, line: int | None = None) -> str:
    """Format a location as ``path`` or ``path:line`` for error messages.

    Examples
    --------
    >>> where("runs.jsonl", 12)
    'runs.jsonl:12'
    >>> where("tasks/")
    'tasks/'
    """
    return f"{path}:{line}" if line is not None else f"{path}"


def json_error(exc: json.JSONDecodeError) -> str:
    """A JSON syntax error as ``"<what> at column N"`` for messages.

    Examples
    --------
    >>> try:
    ...     json.loads('{"a": "x')
    ... except json.JSONDecodeError as exc:
    ...     json_error(exc)
    'Unterminated string starting at column 7'
    """
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(value: Any) -> tuple[Any, int]:
    """``value`` (JSON data) with every lone surrogate replaced by U+FFFD, and how many were replaced.

    JSON text may spell a lone surrogate (``"\\ud800"``), which is no Unicode character: such
    text could be scored but not written to any output file. Control characters, right-to-left
    marks and the like are valid and kept.

    Examples
    --------
    >>> valid_unicode({"a": ["x" + chr(0xD800) + "y", 1]}) == ({"a": ["x\\ufffdy", 1]}, 1)
    True
    """
    if isinstance(value, str):
        fixed, n = _SURROGATE.subn("\ufffd", value)
        return fixed, n
    if isinstance(value, list):
        out, total = [], 0
        for item in value:
            fixed, n = valid_unicode(item)
            out.append(fixed)
            total += n
        return (out, total) if total else (value, 0)
    if isinstance(value, dict):
        out_d, total = {}, 0
        for key, item in value.items():
            fixed_key, n_key = valid_unicode(key)
            fixed, n = valid_unicode(item)
            out_d[fixed_key] = fixed
            total += n + n_key
        return (out_d, total) if total else (value, 0)
    return value, 0


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (0 for a string or number), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            level += 1
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            stack.extend((v, level) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def decode_json(text: str, path: object, line: int | None = None, *, loc: str | None = None) -> tuple[Any, int]:
    """Decode one JSON text (a JSONL line, or a whole file when ``line`` is None), checked for sgr-kit.

    Every way JSON text can fail to become usable data is an :class:`SgrKitError` naming
    ``path:line``: a syntax error (for a whole file, at the line where it is), an integer of
    more digits than Python reads (:func:`sys.get_int_max_str_digits`), lists or objects nested
    more than :data:`MAX_DEPTH` levels deep (``loc``, when given, replaces ``path:line`` in the
    messages: for JSON text inside a field). Lone surrogate escapes (``"\\ud800"``) are replaced
    by U+FFFD (see :func:`valid_unicode`); the caller says so in a note. ``NaN``, ``Infinity``
    and numbers too large for a float (``1e400``, read as infinity) are decoded as Python
    does: the field checkers (:func:`whole_number`, :func:`text_value`) refuse them where a
    whole number or a text is expected.

    Returns
    -------
    value : object
    replaced : int
        How many lone surrogates were replaced.

    Examples
    --------
    >>> decode_json('{"a": [1, "x"]}', "runs.jsonl", 3)
    ({'a': [1, 'x']}, 0)
    >>> decode_json('{"a": 1' + "0" * 5000 + '}', "runs.jsonl", 3)
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: runs.jsonl:3: holds an integer of more than 4300 digits (more than any field can hold)
    >>> decode_json("[" * 200 + "]" * 200, "runs.jsonl", 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: runs.jsonl:4: JSON nested 101 or more levels deep; at most 100 levels of lists or objects are read
    """
    at = loc or where(path, line)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        at = loc or where(path, exc.lineno if line is None else line)
        raise SgrKitError(f"{at}: not valid JSON ({json_error(exc)})") from None
    except RecursionError:
        raise SgrKitError(f"{at}: JSON nested too deeply to read; at most {MAX_DEPTH} levels of lists or objects are "
                          f"read") from None  # fmt: skip
    except ValueError:  # Python's limit on the digits of an integer
        raise SgrKitError(f"{at}: holds an integer of more than {sys.get_int_max_str_digits() or 4300} digits "
                          f"(more than any field can hold)") from None  # fmt: skip
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise SgrKitError(f"{at}: JSON nested {MAX_DEPTH + 1} or more levels deep; at most {MAX_DEPTH} levels of "
                          f"lists or objects are read")  # fmt: skip
    if "\\u" in text or _SURROGATE.search(text):
        return valid_unicode(value)
    return value, 0


def _yaml_at(path: object, mark: Any) -> str:
    return f"{where(path, mark.line + 1)}: column {mark.column + 1}" if mark is not None else f"{path}"


def decode_yaml(text: str, path: object, *, node: bool = False) -> Any:
    """Decode one YAML document (a price, protocol, rules or tool-kinds file), checked for sgr-kit.

    Read as ``yaml.safe_load`` reads it (plain data: mappings, lists, text, numbers, booleans,
    null, dates), with the checks that keep a small file small: an anchor (``&name``) or an
    alias (``*name``, also in a merge key ``<<: *name``) is refused, so a file of a few hundred
    bytes cannot expand into billions of values ("billion laughs"); lists and mappings nested
    more than :data:`MAX_DEPTH` levels deep are refused before they are built. Each problem is
    an :class:`SgrKitError` naming ``path``, line and column: a syntax error, an anchor or
    alias, too deep a nesting, an integer of more digits than Python reads.

    Parameters
    ----------
    text : str
        The file's text.
    path : path or str
        What the messages call the file.
    node : bool, default False
        Also return the YAML node tree (``yaml.Node``; its ``start_mark`` gives each value's
        line and column), for readers whose messages name the line of each row.

    Returns
    -------
    object, or (object, yaml.Node or None) when ``node``

    Examples
    --------
    >>> decode_yaml("model: m-1\\ninput: 2.5\\n", "prices.yaml")
    {'model': 'm-1', 'input': 2.5}
    >>> decode_yaml("a: &x [1, 2]\\nb: *x\\n", "rules.yaml")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: rules.yaml:1: column 4: a YAML anchor (&x); sgr-kit reads YAML without anchors and aliases (a file could expand without bound): write each value out
    >>> decode_yaml("a: [1, 2\\n", "rules.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: rules.yaml:2: column 1: not valid YAML (expected ',' or ']', but got '<stream end>')
    """
    import yaml

    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            alias = isinstance(event, yaml.AliasEvent)
            if alias or getattr(event, "anchor", None) is not None:
                name = describe(event.anchor)[1:-1]
                what = f"alias (*{name})" if alias else f"anchor (&{name})"
                raise SgrKitError(f"{_yaml_at(path, event.start_mark)}: a YAML {what}; sgr-kit reads YAML without "
                                  f"anchors and aliases (a file could expand without bound): write each value out")
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise SgrKitError(f"{_yaml_at(path, event.start_mark)}: YAML nested {MAX_DEPTH + 1} or more levels "
                                      f"deep; at most {MAX_DEPTH} levels of lists or mappings are read")  # fmt: skip
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
        loader = yaml.SafeLoader(text)
        try:
            tree = loader.get_single_node()
            value = loader.construct_document(tree) if tree is not None else None
        finally:
            loader.dispose()
    except SgrKitError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise SgrKitError(f"{_yaml_at(path, mark)}: not valid YAML ({exc.problem or exc.context})") from None
    except yaml.YAMLError as exc:
        raise SgrKitError(f"{path}: not valid YAML ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
                          ) from None  # fmt: skip
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise SgrKitError(f"{path}: YAML nested too deeply to read; at most {MAX_DEPTH} levels are read") from None
    except ValueError as exc:  # an integer of more digits than Python reads, a date out of range
        if "integer string conversion" in str(exc):
            raise SgrKitError(f"{path}: holds an integer of more than {sys.get_int_max_str_digits() or 4300} digits "
                              f"(more than any field can hold)") from None  # fmt: skip
        raise SgrKitError(f"{path}: a value YAML cannot make into data ({str(exc)[:120]})") from None
    value, _ = valid_unicode(value)  # a lone surrogate ("\\ud800") could be read but never written out
    return (value, tree) if node else value


_WIDTH = 60


def _pieces(value: Any, depth: int = 0) -> Iterator[str]:
    """``value`` as JSON text in pieces, each piece bounded, produced only as they are asked for.

    A list or object is walked lazily, so describing a value built from YAML aliases (a
    billion shared references) costs what is shown, never the whole value.
    """
    if depth > _WIDTH:  # deeper than shown anyway
        yield "…"
    elif isinstance(value, dict):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield ", " if i else ""
            yield from _pieces(key if isinstance(key, str) else str(key)[:_WIDTH], depth + 1)
            yield ": "
            yield from _pieces(item, depth + 1)
        yield "}"
    elif isinstance(value, (list, tuple)):
        yield "["
        for i, item in enumerate(value):
            yield ", " if i else ""
            yield from _pieces(item, depth + 1)
        yield "]"
    elif isinstance(value, str):
        yield json.dumps(value[:_WIDTH + 1], ensure_ascii=True)
    elif value is None or isinstance(value, bool):
        yield json.dumps(value)
    elif isinstance(value, int):
        yield str(value) if value.bit_length() <= 256 else "…"
    elif isinstance(value, float):
        yield json.dumps(value)
    else:
        yield type(value).__name__


def _short(text_pieces: Iterable[str], width: int) -> str:
    """The first ``width`` characters of the concatenated pieces, "…" when there were more."""
    out, size = [], 0
    for piece in text_pieces:
        out.append(piece)
        size += len(piece)
        if size > width:
            return "".join(out)[:width] + "…"
    return "".join(out)


def describe(value: Any) -> str:
    """A value from an input file as an error message shows it: its JSON kind and its start, bounded.

    Whatever ``value`` is (a string of a million characters, a list holding itself a billion
    times over through YAML aliases, an integer of 10,000 digits), what is built is at most
    about 60 characters: the message never renders the whole value. Every error
    message that shows a value found in an input uses this function.

    Examples
    --------
    >>> describe("x"), describe(True), describe(None), describe([1, 2]), describe(10**30)
    ("'x'", 'true', 'null', 'a list [1, 2]', '1000000000000000000000000000000')
    >>> describe(10**100)
    'an integer of 101 digits (1000000000…)'
    >>> describe(float("inf")), describe({"a": 1})
    ('a number too large (infinity)', 'an object {"a": 1}')
    >>> laughs = ["lol"] * 9
    >>> for _ in range(9):
    ...     laughs = [laughs] * 9  # 9**10 strings if it were written out
    >>> describe(laughs)
    'a list [[[[[[[[[["lol", "lol", "lol", "lol", "lol", "lol", "lol", "…'
    """
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        if value.bit_length() > 14_000:  # more digits than str() may show
            return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
        digits = str(value)
        return digits if len(digits) <= 40 else f"an integer of {len(digits.lstrip('-'))} digits ({digits[:10]}…)"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "a number too large (infinity)"
        return repr(value)
    if isinstance(value, str):
        shown = repr(value[:_WIDTH])
        return shown if len(value) <= _WIDTH else f"{shown}… ({len(value)} characters)"
    kind = {list: "a list", dict: "an object", tuple: "a list"}.get(type(value), type(value).__name__)
    if not isinstance(value, (list, tuple, dict)):
        return kind
    try:
        return f"{kind} {_short(_pieces(value), _WIDTH)}"
    except (TypeError, ValueError, RecursionError):
        return kind


def whole_number(value: Any, loc: str, field: str, *, default: int | None = None, maximum: int = MAX_WHOLE) -> int:
    """A whole number from 0 to ``maximum`` read from an input file: a JSON integer or a text of ASCII digits.

    ``None`` and an empty text give ``default`` when one is given. Anything else (a negative
    number, a fraction, ``true``, a list, ``"²"``, a number above ``maximum``) is an
    :class:`SgrKitError` naming ``loc``, ``field``, what was expected and what was found.

    Examples
    --------
    >>> whole_number(" 3 ", "runs.csv:2", "repeat"), whole_number(None, "x", "repeat", default=0)
    (3, 0)
    >>> whole_number(10**30, "runs.jsonl:2", "repeat")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: runs.jsonl:2: repeat should be a whole number from 0 to 2147483647; found 1000000000000000000000000000000
    >>> whole_number("²", "labels.csv:4", "column 'repeat'")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: labels.csv:4: column 'repeat' should be a whole number from 0 to 2147483647; found '²'
    """
    if default is not None and (value is None or (isinstance(value, str) and not value.strip())):
        return default
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        digits = value.strip().lstrip("0") or "0"
        number = int(digits) if len(digits) <= len(str(maximum)) else None
    if number is None or not 0 <= number <= maximum:
        raise SgrKitError(f"{loc}: {field} should be a whole number from 0 to {maximum}; found {describe(value)}")
    return number


_DIGITS = re.compile("[0-9]+")


def text_value(value: Any, loc: str, field: str, *, numbers: bool = True) -> str:
    """A text field read from JSON, stripped: a string, or (``numbers``) a JSON integer written as text.

    A list, an object, ``true``/``false``, ``null`` or a fraction is an :class:`SgrKitError`
    naming ``loc`` and ``field``. Empty text is returned as ``""``: whether it is allowed is the
    caller's rule.

    Examples
    --------
    >>> text_value(" gpt ", "runs.jsonl:1", "system"), text_value(7, "runs.jsonl:1", "task_id")
    ('gpt', '7')
    >>> text_value(["a"], "runs.jsonl:1", "system")
    Traceback (most recent call last):
    ...
    sgr_kit.errors.SgrKitError: runs.jsonl:1: system should be a string; found a list ["a"]
    """
    if isinstance(value, str):
        return value.strip()
    if numbers and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise SgrKitError(f"{loc}: {field} should be a string; found {describe(value)}")
