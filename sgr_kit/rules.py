"""User rules: per-task aliases, column types, numeric tolerances and row keys.

A rules file (``--rules``) is JSON or YAML (chosen by the suffix ``.json``,
``.yaml`` or ``.yml``)::

    tasks:
      census_001:            # a task id, a base id (both variants), or "*" (every task)
        aliases: {county: {"St. Louis": "Saint Louis"}}
        types: {population: integer}
        tolerance: {share_pct: 0.05}
        key: [state, county]

It is validated when loaded (:func:`load_rules`); column names are checked
against each task's schema when applied (:meth:`Rules.apply`). Entries apply
from the most general to the most specific: ``"*"``, then the base id, then the
task id. Aliases are merged into the rubric's (a user alias wins on the same
spelling); a type, a tolerance or a key replaces what a more general entry or
the rubric gave. A ``"*"`` entry skips tasks that lack one of its columns; a
task or base entry naming a column its task does not have is an error.

Tolerances are absolute (``|prediction - reference| <= tolerance``) and apply
only where a user asks for them: the scorer never adds one.

A column a rules file types ``integer`` or ``decimal`` compares cells as numbers; a cell
that is not a number there (``v1``, ``NA``) is invalid, and an invalid cell never matches
anything, not even the identical invalid text in the reference (scoring warns, once per
task and column, when the reference itself holds such cells). The benchmark's own rule
(an invalid marker matches the identical invalid text, so ``NA`` matches ``NA``) is kept
for types the task's rubric declares, which the ``strict`` profile must reproduce.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import SgrKitError, decode_json, decode_yaml, describe
from .schema import FIELD_TYPES
from .types import Schema, Task

__all__ = ["TaskRules", "Rules", "load_rules", "RULE_KEYS"]

#: Keys an entry may have.
RULE_KEYS = ("aliases", "types", "tolerance", "key")
ALL_TASKS = "*"


@dataclass(frozen=True, slots=True)
class TaskRules:
    """The rules of one entry (hashable: every field is a tuple).

    Attributes
    ----------
    aliases : tuple of (column, tuple of (spelling, canonical))
    types : tuple of (column, type)
    tolerance : tuple of (column, Decimal)
    key : tuple of str or None
    """

    aliases: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    types: tuple[tuple[str, str], ...] = ()
    tolerance: tuple[tuple[str, Decimal], ...] = ()
    key: tuple[str, ...] | None = None

    def columns(self) -> list[str]:
        """Every column the entry names, in the order it names them."""
        named = [c for c, _ in self.aliases] + [c for c, _ in self.types] + [c for c, _ in self.tolerance]
        return list(dict.fromkeys(named + list(self.key or ())))


@dataclass(frozen=True, slots=True)
class Rules:
    """Validated user rules, by selector (task id, base id or ``"*"``).

    Attributes
    ----------
    entries : tuple of (selector, TaskRules)
        In file order.
    source : str
        The file they came from (named in error messages).

    Examples
    --------
    >>> Rules.empty().describe()
    'no user rules'
    """

    entries: tuple[tuple[str, TaskRules], ...] = ()
    source: str = ""

    @classmethod
    def empty(cls) -> Rules:
        """Rules that change nothing."""
        return cls()

    def __len__(self) -> int:
        return len(self.entries)

    def selectors(self) -> tuple[str, ...]:
        """The task ids, base ids and ``"*"`` the rules name, in file order."""
        return tuple(s for s, _ in self.entries)

    def unused(self, task_ids: Mapping[str, Any] | list[str] | tuple[str, ...]) -> tuple[str, ...]:
        """Selectors that match none of ``task_ids`` (a base id ``x`` matches ``x`` and ``x-g``).

        Examples
        --------
        >>> r = Rules(entries=(("a_001", TaskRules()), ("zz_9", TaskRules()), ("*", TaskRules())))
        >>> r.unused(["a_001-g"])
        ('zz_9',)
        """
        ids = set(task_ids)
        bases = {i[:-2] if i.endswith("-g") else i for i in ids}
        return tuple(s for s, _ in self.entries if s != ALL_TASKS and s not in ids and s not in bases)

    def apply(self, task: Task) -> tuple[Schema, dict[str, Decimal]]:
        """The task's schema with the rules applied, and its per-column tolerances.

        Parameters
        ----------
        task : Task

        Returns
        -------
        schema : Schema
            ``task.schema`` itself when no entry applies.
        tolerance : dict of str to Decimal
            Absolute tolerance per column; empty when none.

        Raises
        ------
        SgrKitError
            When a task or base entry names a column the task's schema lacks.

        Examples
        --------
        >>> from sgr_kit.types import Schema, Task
        >>> task = Task(task_id="t_001-g", base_id="t_001", variant="goal", domain="X",
        ...             ecosystem="x", family="x", schema=Schema(("a", "b"), ("a",)),
        ...             reference="a|b", gold_rows=1, bin="1-2")
        >>> rules = Rules(entries=(("t_001", TaskRules(types=(("b", "decimal"),),
        ...                                             tolerance=(("b", Decimal("0.5")),))),))
        >>> schema, tolerance = rules.apply(task)
        >>> schema.rule("b").type, tolerance
        ('decimal', {'b': Decimal('0.5')})
        """
        schema = task.schema
        tolerance: dict[str, Decimal] = {}
        order = {ALL_TASKS: 0, task.base_id: 1, task.task_id: 2}
        applicable = sorted(
            (order[s], i, s, r) for i, (s, r) in enumerate(self.entries) if s in order
        )
        for _, _, selector, entry in applicable:
            missing = [c for c in entry.columns() if c not in schema.columns]
            if missing:
                if selector == ALL_TASKS:
                    continue
                raise SgrKitError(
                    f"{self.source or 'rules'}: entry {selector!r} names column(s) {', '.join(map(repr, missing))} "
                    f"that task {task.task_id} does not have (its columns: {', '.join(schema.columns)})"
                )
            schema = _apply_entry(schema, entry, tolerance)
        return schema, tolerance

    def declared_types(self, task: Task) -> dict[str, str]:
        """The column types the rules give ``task`` (the most specific entry wins).

        Examples
        --------
        >>> from sgr_kit.types import Schema, Task
        >>> task = Task("t_001", "t_001", "constraint", "X", "x", "x", Schema(("a", "b"), ("a",)), "a|b", 1, "1-2")
        >>> Rules(entries=(("*", TaskRules(types=(("b", "integer"),))),)).declared_types(task)
        {'b': 'integer'}
        """
        order = {ALL_TASKS: 0, task.base_id: 1, task.task_id: 2}
        types: dict[str, str] = {}
        for _, _, selector, entry in sorted(
            (order[s], i, s, r) for i, (s, r) in enumerate(self.entries) if s in order
        ):
            if selector == ALL_TASKS and any(c not in task.schema.columns for c in entry.columns()):
                continue
            types.update(entry.types)
        return types

    def describe(self) -> str:
        """One line per entry, for the command line.

        Examples
        --------
        >>> r = Rules(entries=(("*", TaskRules(key=("a", "b"))),), source="rules.yaml")
        >>> print(r.describe())
        rules.yaml: 1 entry
          *: key a, b
        """
        if not self.entries:
            return "no user rules"
        lines = [f"{self.source or 'rules'}: {len(self.entries)} entr{'y' if len(self.entries) == 1 else 'ies'}"]
        for selector, entry in self.entries:
            parts = []
            if entry.aliases:
                parts.append("aliases " + ", ".join(f"{c} ({len(a)})" for c, a in entry.aliases))
            if entry.types:
                parts.append("types " + ", ".join(f"{c}={t}" for c, t in entry.types))
            if entry.tolerance:
                parts.append("tolerance " + ", ".join(f"{c}={t}" for c, t in entry.tolerance))
            if entry.key is not None:
                parts.append("key " + ", ".join(entry.key))
            lines.append(f"  {selector}: {'; '.join(parts) or 'nothing'}")
        return "\n".join(lines)


def _apply_entry(schema: Schema, entry: TaskRules, tolerance: dict[str, Decimal]) -> Schema:
    fields = dict(schema.fields)
    for column, aliases in entry.aliases:
        rule = schema.rule(column)
        merged = {**rule.aliases, **dict(aliases)}
        fields[column] = replace(rule, aliases=MappingProxyType(merged))
    for column, kind in entry.types:
        fields[column] = replace(fields.get(column, schema.rule(column)), type=kind)
    for column, value in entry.tolerance:
        tolerance[column] = value
    row_key = entry.key if entry.key is not None else schema.row_key
    return replace(schema, fields=MappingProxyType(fields), row_key=row_key)


def load_rules(path: str | Path) -> Rules:
    """Read and validate a rules file (JSON or YAML, by suffix).

    Parameters
    ----------
    path : str or Path
        A ``.json``, ``.yaml`` or ``.yml`` file with a top-level ``tasks`` mapping.

    Returns
    -------
    Rules

    Raises
    ------
    SgrKitError
        When the file cannot be read or parsed, or an entry is malformed: the
        message names the file, the entry (task) and the key.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "rules.yaml"
    >>> _ = p.write_text("tasks:\\n  census_001:\\n    tolerance: {share: 0.05}\\n    key: [state, county]\\n")
    >>> rules = load_rules(p)
    >>> rules.entries[0][1].tolerance, rules.entries[0][1].key
    ((('share', Decimal('0.05')),), ('state', 'county'))
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise SgrKitError(f"{path}: rules file must end in .json, .yaml or .yml; found {suffix or 'no suffix'!r}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SgrKitError(f"{path}: cannot read the rules file ({error})") from None
    data = decode_json(text, path)[0] if suffix == ".json" else decode_yaml(text, path)
    return _validate(data, str(path))


def _validate(data: object, source: str) -> Rules:
    if not isinstance(data, dict):
        raise SgrKitError(f"{source}: expected a mapping with the key 'tasks', found {type(data).__name__}")
    unknown = [k for k in data if k != "tasks"]
    if unknown:
        raise SgrKitError(f"{source}: unknown top-level key(s) {', '.join(map(repr, unknown))}; expected only 'tasks'")
    tasks = data.get("tasks")
    if not isinstance(tasks, dict):
        raise SgrKitError(f"{source}: 'tasks' must be a mapping of task id -> rules, found {type(tasks).__name__}")
    entries = []
    for selector, entry in tasks.items():
        if not isinstance(selector, str) or not selector.strip():
            raise SgrKitError(f"{source}: task selector must be a non-empty string, found {describe(selector)}")
        entries.append((selector, _entry(entry, source, selector)))
    return Rules(entries=tuple(entries), source=source)


def _entry(entry: object, source: str, selector: str) -> TaskRules:
    at = f"{source}: task {describe(selector)}"
    if not isinstance(entry, dict):
        raise SgrKitError(f"{at}: expected a mapping with keys among {', '.join(RULE_KEYS)}, found {describe(entry)}")
    unknown = [k for k in entry if k not in RULE_KEYS]
    if unknown:
        raise SgrKitError(
            f"{at}: unknown key(s) {', '.join(map(repr, unknown))}; expected keys among {', '.join(RULE_KEYS)}"
        )
    aliases = []
    columns = _columns(entry.get("aliases", {}), f"{at}, aliases", "column -> {spelling: canonical}")
    for column, mapping in columns.items():
        here = f"{at}, aliases.{column}"
        pairs = _mapping(mapping, here, "spelling -> canonical spelling").items()
        aliases.append((column, tuple((_text(k, here), _text(v, here)) for k, v in pairs)))
    types = []
    for column, kind in _columns(entry.get("types", {}), f"{at}, types", "column -> type").items():
        if kind not in FIELD_TYPES:
            raise SgrKitError(f"{at}, types.{column}: unknown type {describe(kind)}; expected one of {', '.join(FIELD_TYPES)}")
        types.append((column, kind))
    tolerance = []
    for column, value in _columns(entry.get("tolerance", {}), f"{at}, tolerance", "column -> number").items():
        tolerance.append((column, _tolerance(value, f"{at}, tolerance.{column}")))
    key = None
    if "key" in entry:
        value = entry["key"]
        if not isinstance(value, list) or not value or not all(isinstance(c, str) and c for c in value):
            raise SgrKitError(f"{at}, key: expected a non-empty list of column names, found {describe(value)}")
        if len(set(value)) != len(value):
            raise SgrKitError(f"{at}, key: a column appears twice in {describe(value)}")
        key = tuple(value)
    return TaskRules(aliases=tuple(aliases), types=tuple(types), tolerance=tuple(tolerance), key=key)


def _mapping(value: object, at: str, expected: str) -> dict:
    if not isinstance(value, dict):
        raise SgrKitError(f"{at}: expected a mapping {expected}, found {describe(value)}")
    return value


def _columns(value: object, at: str, expected: str) -> dict:
    mapping = _mapping(value, at, expected)
    for column in mapping:
        if not isinstance(column, str) or not column:
            raise SgrKitError(f"{at}: column names must be non-empty strings, found {describe(column)}")
    return mapping


def _text(value: object, at: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise SgrKitError(f"{at}: aliases must be strings (quote {describe(value)} in the file), found {type(value).__name__}")


def _tolerance(value: object, at: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise SgrKitError(f"{at}: expected a number >= 0, found {describe(value)}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise SgrKitError(f"{at}: expected a number >= 0, found {describe(value)}") from None
    if not number.is_finite() or number < 0:
        raise SgrKitError(f"{at}: expected a finite number >= 0, found {describe(value)}")
    return number
