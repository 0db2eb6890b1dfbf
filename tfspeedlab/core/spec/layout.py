"""How an example's results are read: declared on its ``Workload``, recorded in its results file.

The site never guesses a page layout from example names or parameter keys: it
reads one of these. ``Cases`` (the default) is a table with a row per case;
the others say which case parameters make the axes of a sweep or a grid, or
which entry points form the stack of an op's layers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar


class LayoutError(ValueError):
    """A layout record that does not describe any known layout."""


@dataclass(frozen=True)
class Cases:
    """One row per case, with speed-ups against the workload's baseline case."""

    kind: ClassVar[str] = "cases"


@dataclass(frozen=True)
class Sweep:
    """The cases trace a line per ``series`` value along a numeric case parameter."""

    kind: ClassVar[str] = "sweep"
    # The case parameter that varies along the x axis ("n_ops", "elements").
    parameter: str
    # The case parameter naming each line ("mode": eager, graph, xla).
    series: str = "mode"
    # The series every other is compared with ("how many times faster than eager").
    baseline: str | None = None
    # The cost model is fitted from the sweeps that say so: the one over "n_ops"
    # gives per-call and per-op costs, the one over "elements" per-element costs.
    fits_cost_model: bool = False


@dataclass(frozen=True)
class PerOp:
    """In a grid, a column whose call is a loop of ``ops`` small ops: its time per op is per-op dispatch."""

    column: str
    ops: int
    # The column shown beside it for scale (a whole training step).
    step_column: str
    # A boolean case parameter: true when the row's mode dispatches op by op
    # (eager modes), false when one call runs them all (graphs, compiled code).
    op_by_op: str = "op_by_op"


@dataclass(frozen=True)
class Grid:
    """A table of ``rows`` × ``columns`` case parameters; one chart panel per column."""

    kind: ClassVar[str] = "grid"
    rows: str
    columns: str
    # The row every other is compared with, within its column.
    baseline: str | None = None
    # What one timed call is, for axis titles: "time per step", "time per call".
    time_per: str = "step"
    per_op: PerOp | None = None
    # A case parameter that splits the grid into one table per value (one per model):
    # each is rows × columns on its own, with its own baseline row.
    split: str | None = None


@dataclass(frozen=True)
class OpLayers:
    """One op entered at each layer of the eager stack, at several tensor sizes.

    The fields name the cases' ``entry`` values by role. Each entry point nests
    in the next: every one of ``top_entries`` (the APIs a user calls) ends in
    ``wrapper``, which calls ``fast_path``, which ends in the kernel. The
    kernel alone is timed as a chain of the op in a graph (``kernel``), less an
    empty graph call (``empty_call``) spread over the chain.
    """

    kind: ClassVar[str] = "op_layers"
    top_entries: tuple[str, ...]
    wrapper: str
    fast_path: str
    kernel: str
    empty_call: str
    # Case parameters: which entry point, at what tensor size, over how long a chain.
    entry: str = "entry"
    size: str = "elements"
    chain: str = "chain"


Layout = Cases | Sweep | Grid | OpLayers
LAYOUTS: dict[str, type] = {kind.kind: kind for kind in (Cases, Sweep, Grid, OpLayers)}


def parameters_read(layout: Layout) -> list[str]:
    """The case parameters a layout reads: every case must have them."""
    if isinstance(layout, Sweep):
        return [layout.parameter, layout.series]
    if isinstance(layout, Grid):
        return ([layout.rows, layout.columns] + ([layout.per_op.op_by_op] if layout.per_op else [])
                + ([layout.split] if layout.split else []))
    if isinstance(layout, OpLayers):
        return [layout.entry, layout.size]
    return []


def coordinate_names(layout: Layout) -> tuple[str | None, ...]:
    """The case parameters that say where a case sits in its layout: a grid's part (None where it is
    not split), row and column; a sweep's series and point; an op layer's entry and size. Empty for a
    table of cases, whose rows are told apart by label alone."""
    if isinstance(layout, Grid):
        return (layout.split, layout.rows, layout.columns)
    if isinstance(layout, Sweep):
        return (layout.series, layout.parameter)
    if isinstance(layout, OpLayers):
        return (layout.entry, layout.size)
    return ()


def coordinate(layout: Layout, params: Mapping[str, Any]) -> tuple | None:
    """Where a case sits in its layout (the values of ``coordinate_names``), or None in a table of
    cases. Pages find a case by these values, so two cases on one coordinate leave one unseen."""
    names = coordinate_names(layout)
    return tuple(None if name is None else params[name] for name in names) if names else None


def shared_coordinate(layout: Layout, params: Sequence[Mapping[str, Any]]) -> tuple[int, int, tuple] | None:
    """The first two cases (by index, with their coordinate) that sit on one coordinate of ``layout``, or
    None. Values are compared as the pages compare them (as dictionary keys: 1, 1.0 and true are one)."""
    seen: dict[tuple, int] = {}
    for index, found in enumerate(params):
        where = coordinate(layout, found)
        if where is None:
            return None
        key = tuple(_as_key(value) for value in where)
        if key in seen:
            return seen[key], index, where
        seen[key] = index
    return None


def _as_key(value: Any) -> Any:
    """``value`` as a dictionary key; a list or an object (which no page can key by) as its JSON text."""
    try:
        hash(value)
    except TypeError:
        return ("unhashable", json.dumps(value, sort_keys=True, default=repr))
    return value


def to_record(layout: Layout) -> dict[str, Any]:
    """The JSON form stored in a results file: ``{"kind": "sweep", "parameter": "n_ops", ...}``."""
    record: dict[str, Any] = {"kind": layout.kind}
    for spec in fields(layout):
        value = getattr(layout, spec.name)
        if isinstance(value, PerOp):
            value = {field.name: getattr(value, field.name) for field in fields(value)}
        elif isinstance(value, tuple):
            value = list(value)
        record[spec.name] = value
    return record


def from_record(record: Any) -> Layout:
    """A layout from its JSON form; ``LayoutError`` naming what is wrong."""
    if not isinstance(record, Mapping):
        raise LayoutError("must be a JSON object")
    kind = LAYOUTS.get(record.get("kind")) if isinstance(record.get("kind"), str) else None
    if kind is None:
        raise LayoutError(f"kind must be one of {sorted(LAYOUTS)}, found {record.get('kind')!r}")
    values = {name: value for name, value in record.items() if name != "kind"}
    if isinstance(values.get("top_entries"), list):
        values["top_entries"] = tuple(values["top_entries"])
    if isinstance(values.get("per_op"), Mapping):
        values["per_op"] = _build(PerOp, values["per_op"], "per_op.")
    return _build(kind, values, "")


def _build(kind: type, values: Mapping[str, Any], prefix: str):
    known = {spec.name: spec for spec in fields(kind)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise LayoutError(f"{kind.__name__} has no field(s) {', '.join(prefix + name for name in unknown)}; "
                          f"its fields are {', '.join(known) or '(none)'}")
    try:
        built = kind(**values)
    except TypeError as error:
        raise LayoutError(f"{kind.__name__}: {error}") from None
    for name, spec in known.items():
        value = getattr(built, name)
        expected = _TYPES[spec.type]
        wrong_items = isinstance(value, tuple) and not all(isinstance(item, str) for item in value)
        if wrong_items or not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
            raise LayoutError(f"{prefix}{name} must be {spec.type}, found {value!r}")
    return built


# Field annotations (strings under ``from __future__ import annotations``) → runtime checks.
_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "str | None": (str, type(None)),
    "bool": (bool,),
    "int": (int,),
    "tuple[str, ...]": (tuple,),
    "PerOp | None": (PerOp, type(None)),
}
