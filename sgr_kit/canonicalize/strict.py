"""Cell cleaning and per-column rules of the benchmark's own deterministic scorer.

Every cell, predicted or reference, is first cleaned by :func:`clean_cell`, then
mapped by its column's :class:`~sgr_kit.types.FieldRule` with :func:`apply_rule`.
The two canonical strings are compared exactly (case-sensitive ``==``).

Numbers are exact decimals (:class:`decimal.Decimal` in a fixed context of 28
significant digits, the reference scorer's context): ``8.40`` and ``8.4`` and
``8.400 mg/L`` are all ``"8.4"``, ``8.404`` stays ``"8.404"`` (predictions are
never rounded). A cell that is not a valid number in a numeric column becomes an
invalid marker (``"INVALID:<text>"`` or ``"INVALID_UNIT:<text>"``), which equals
only the marker of the identical text: ``NA`` matches a reference ``NA``.

Which invalid markers may match is decided where cells are compared
(:mod:`sgr_kit.score.answer`), by where the column's type comes from:

- a type the task's rubric declares keeps the reference scorer's rule above, in
  both profiles: the ``strict`` profile must reproduce that scorer, and the
  release's own ``NA`` cells are answers a reviewer accepts;
- a type a user rules file declares (``--rules``, ``types: {col: integer}``) is
  the user's statement that the column holds numbers: there an invalid cell
  never matches anything, not even the identical invalid reference cell, in
  both profiles (scoring warns when the reference holds such cells). Without
  this, a rules file typing a text column ``integer`` would turn ``v1`` vs
  ``v1`` into two invalid markers that match, hiding the wrong declaration.

One deliberate difference from the reference scorer's code, following its
written rule "an empty predicted cell is never correct": an empty cell is ``""``
in every column type (the reference code turns an empty numeric cell into the
marker ``"INVALID:"``, so two empty numeric cells would match there).
"""

from __future__ import annotations

import re
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DecimalException,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)
from fractions import Fraction
from typing import Callable, Mapping

from ..errors import SgrKitError
from ..parse.cells import clean_cell
from ..schema import FIELD_TYPES
from ..types import FieldRule, Schema

__all__ = ["apply_rule", "rule_function", "strict_canonicalizers", "INVALID", "INVALID_UNIT"]

#: Prefix of the canonical form of a cell that is not a valid number.
INVALID = "INVALID:"
#: Prefix of the canonical form of a number followed by an undeclared unit.
INVALID_UNIT = "INVALID_UNIT:"

#: The reference scorer's decimal context (Python's default context, fixed here so
#: that a caller's ``decimal.getcontext()`` changes cannot alter scores).
DECIMAL_CONTEXT = Context(
    prec=28,
    rounding=ROUND_HALF_EVEN,
    Emin=-999999,
    Emax=999999,
    capitals=1,
    clamp=0,
    flags=[],
    traps=[InvalidOperation, DivisionByZero, Overflow],
)

# Numbers are written out in full (8.4, 400) up to this decimal exponent; beyond it (never in a
# real answer) in scientific notation, so that text such as 1e999999 cannot make a string of a
# million digits. Equal values still give equal strings.
_WRITTEN_OUT = 1000
_NUMBER_UNIT = re.compile(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(.*)")
_ID_SEPARATORS = re.compile(r"[;,\s]+")
_ID_STRIP = "\"'[]"


def _decimal(value: object, what: str) -> Decimal:
    """A unit parameter (offset, scale) as an exact Decimal."""
    if isinstance(value, Fraction):
        return DECIMAL_CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))
    if isinstance(value, (int, Decimal, str)) and not isinstance(value, bool):
        try:
            return Decimal(value)
        except InvalidOperation:
            pass
    raise SgrKitError(f"unit {what}: expected a number (int, Fraction, Decimal), found {value!r}")


def _unit_table(units: Mapping[str, object]) -> dict[str, tuple[Decimal, Decimal, Decimal]]:
    table = {}
    for spelling, conversion in units.items():
        if isinstance(conversion, Mapping):  # {offset, scale_num, scale_den} as in the release
            conversion = (conversion.get("offset", 0), conversion.get("scale_num", 1), conversion.get("scale_den", 1))
        if not isinstance(conversion, (tuple, list)) or len(conversion) != 3:
            raise SgrKitError(
                f"unit {spelling!r}: expected (offset, scale_num, scale_den), found {conversion!r}"
            )
        offset, num, den = (_decimal(v, f"{spelling!r}") for v in conversion)
        if den == 0:
            raise SgrKitError(f"unit {spelling!r}: scale_den must not be 0")
        table[clean_cell(spelling)] = (offset, num, den)
    return table


def _number(s: str, integer: bool, units: dict[str, tuple[Decimal, Decimal, Decimal]] | None) -> str:
    ctx = DECIMAL_CONTEXT
    try:
        if units is not None:
            m = _NUMBER_UNIT.fullmatch(s)
            if m is None:
                return INVALID + s
            number = Decimal(m[1])
            if m[2]:
                conversion = units.get(m[2])
                if conversion is None:
                    return INVALID_UNIT + s
                offset, num, den = conversion
                number = ctx.divide(ctx.multiply(ctx.subtract(number, offset), num), den)
        else:
            number = Decimal(s)
        if not number.is_finite() or (integer and number != number.to_integral_value(context=ctx)):
            return INVALID + s
        number = number.normalize(ctx)
        if not -_WRITTEN_OUT <= number.adjusted() <= _WRITTEN_OUT:
            return str(number)  # 1E+999999, not a million digits; still one string per value
        return format(number, "f")
    except (DecimalException, ValueError):
        return INVALID + s


def rule_function(rule: FieldRule) -> Callable[[str], str]:
    """Compile ``rule`` into a function from a *cleaned* cell to its canonical string.

    The work that does not depend on the cell (unit table, type dispatch) is
    done once here; :func:`apply_rule` is the one-call form.

    Parameters
    ----------
    rule : FieldRule

    Returns
    -------
    callable
        ``f(cleaned) -> canonical``.

    Examples
    --------
    >>> f = rule_function(FieldRule(type="integer"))
    >>> f("12"), f("12.0"), f("12.5")
    ('12', '12', 'INVALID:12.5')
    """
    if not isinstance(rule, FieldRule):
        raise SgrKitError(f"expected a FieldRule, found {type(rule).__name__}")
    if rule.type not in FIELD_TYPES:
        raise SgrKitError(f"field type must be one of {', '.join(FIELD_TYPES)}; found {rule.type!r}")
    aliases = dict(rule.aliases)
    upper = bool(rule.uppercase)
    kind = rule.type

    def prepare(s: str) -> str:
        if aliases:
            s = aliases.get(s, s)
        return s.upper() if upper else s

    if kind == "string":
        return prepare if aliases or upper else _unchanged
    if kind == "id_list":

        def id_list(s: str) -> str:
            members = {m.strip(_ID_STRIP) for m in _ID_SEPARATORS.split(prepare(s))}
            members.discard("")
            return ";".join(sorted(members))

        return id_list
    integer = kind == "integer"
    units = _unit_table(rule.units) if rule.units else None

    def number(s: str) -> str:
        s = prepare(s)
        return _number(s, integer, units) if s else ""

    return number


def apply_rule(cleaned: str, rule: FieldRule) -> str:
    """Map a cleaned cell to its canonical string under a column rule.

    Order: ``aliases`` (exact cleaned string), ``uppercase``, then the type:
    ``string`` unchanged; ``integer``/``decimal`` an exact decimal, with
    ``units`` ``<number>`` or ``<number> <unit>`` converted as
    ``(x - offset) * scale_num / scale_den``, trailing zeros dropped, an
    integer required to be integral, anything else an invalid marker;
    ``id_list`` split on semicolons, commas and whitespace, quotes and brackets
    stripped, empties and duplicates dropped, sorted, joined with ``;``.

    Parameters
    ----------
    cleaned : str
        Output of :func:`clean_cell`.
    rule : FieldRule

    Returns
    -------
    str
        The canonical string; ``""`` for an empty cell.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> temp = FieldRule(type="decimal", units={"deg C": (F(0), F(1), F(1)),
    ...                                         "deg F": (F(32), F(5), F(9))})
    >>> apply_rule("46.4 deg F", temp), apply_rule("8.0", temp), apply_rule("8.404", temp)
    ('8', '8', '8.404')
    >>> apply_rule("8 K", temp), apply_rule("NA", temp)
    ('INVALID_UNIT:8 K', 'INVALID:NA')
    >>> apply_rule("[b, a] a;c", FieldRule(type="id_list"))
    'a;b;c'
    >>> apply_rule("pos", FieldRule(aliases={"pos": "positive"}, uppercase=True))
    'POSITIVE'
    """
    return rule_function(rule)(cleaned)


def strict_canonicalizers(schema: Schema) -> list[Callable[[str], str]]:
    """One function per schema column mapping a raw cell to its strict canonical string.

    Parameters
    ----------
    schema : Schema

    Returns
    -------
    list of callable
        ``f(raw) == apply_rule(clean_cell(raw), schema.rule(column))``.

    Examples
    --------
    >>> schema = Schema(columns=("id", "n"), row_key=("id",), fields={"n": FieldRule(type="integer")})
    >>> [f(x) for f, x in zip(strict_canonicalizers(schema), [" *a1* ", "4.00"])]
    ['a1', '4']
    """
    functions = []
    for column in schema.columns:
        rule = rule_function(schema.rule(column))
        functions.append(clean_cell if rule is _unchanged else _compose(rule))
    return functions


def _unchanged(s: str) -> str:
    return s


def _compose(rule: Callable[[str], str]) -> Callable[[str], str]:
    return lambda raw: rule(clean_cell(raw))
