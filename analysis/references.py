"""Per-point references with tolerances for `runner compare --reference FILE`,
written the way ReFrame users write a test's `reference`: a value with a lower
and an upper threshold, as fractions of it (None/null: unbounded).

    # references.yaml
    references:
      - point: "gemm/cublas dtype=float size=4096x4096x4096"
        gflops: [50000, -0.05, null]        # fail below 47,500 GFLOP/s
      - point: "transpose/tiled_vec *"
        pct_of_copy: [95, -0.03, null]
      - point: "gemm/omp_* threads=2"
        time_ms: [null, null, 0.25]         # reference null: run A's value; fail 25 % slower

`point` is a shell pattern (*, ?, [..]) matched against the record's
point_key (`runner CONFIG --dry-run` lists them); every entry applies to every
point it matches.  A metric is `time_ms` (the median) or any numeric record
column (gflops, gbps, pct_of_copy, speedup, ...).  Errors name FILE:LINE:COLUMN.
"""

from __future__ import annotations

import fnmatch
import math
from typing import NamedTuple

import yaml

import results_io as rio

# Metrics a reference may bound: the median time under its short name, and every numeric column.
METRIC_ALIASES = {"time_ms": "time_ms_median"}
NUMERIC = set(rio.NUMERIC_COLUMNS)


class ReferenceError(Exception):
    """A reference file that cannot be used; the message starts with FILE:LINE:COLUMN."""


class Bound(NamedTuple):
    metric: str          # the record column
    name: str            # as written in the file
    value: float | None  # None: run A's value of the point
    lower: float | None  # fraction <= 0, None: unbounded
    upper: float | None  # fraction >= 0, None: unbounded


class Reference(NamedTuple):
    pattern: str
    bounds: list[Bound]
    where: str  # FILE:LINE:COLUMN of the entry

    def matches(self, point_key: str) -> bool:
        return bool(point_key) and fnmatch.fnmatchcase(point_key, self.pattern)


def load_references(path: str) -> list[Reference]:
    """The entries of a reference file, checked; raises ReferenceError."""
    try:
        with open(path, encoding="utf-8") as fh:
            root = yaml.compose(fh)
    except OSError as exc:
        raise ReferenceError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise ReferenceError(f"{path}:{mark.line + 1}:{mark.column + 1}: {exc.problem}") from None

    def fail(node, what):
        raise ReferenceError(f"{path}:{node.start_mark.line + 1}:{node.start_mark.column + 1}: "
                             f"{what}")

    if root is None:
        raise ReferenceError(f"{path}:1:1: empty file: expected a 'references' list")
    if not isinstance(root, yaml.MappingNode):
        fail(root, "expected a mapping with a 'references' list")
    top = {k.value: v for k, v in root.value}
    unknown = [k for k, _ in root.value if k.value != "references"]
    if unknown:
        fail(unknown[0], f"unknown key '{unknown[0].value}' (expected 'references')")
    entries = top.get("references")
    if not isinstance(entries, yaml.SequenceNode) or not entries.value:
        fail(entries or root, "'references' must be a non-empty list of entries")
    out = []
    for entry in entries.value:
        if not isinstance(entry, yaml.MappingNode):
            fail(entry, "an entry is a mapping: {point: PATTERN, METRIC: [value, lower, upper]}")
        pattern, bounds = None, []
        for key, value in entry.value:
            name = key.value
            if name == "point":
                if not isinstance(value, yaml.ScalarNode) or not value.value:
                    fail(value, "'point' is a pattern of point keys, e.g. \"gemm/cublas *\"")
                pattern = value.value
                continue
            metric = METRIC_ALIASES.get(name, name)
            if metric not in NUMERIC:
                fail(key, f"unknown metric '{name}': time_ms or a numeric column "
                          "(gflops, gbps, pct_of_copy, speedup, ...)")
            bounds.append(_bound(value, metric, name, fail))
        if pattern is None:
            fail(entry, "the entry has no 'point'")
        if not bounds:
            fail(entry, f"the entry for '{pattern}' bounds no metric")
        mark = entry.start_mark
        out.append(Reference(pattern, bounds, f"{path}:{mark.line + 1}:{mark.column + 1}"))
    return out


def _bound(node, metric: str, name: str, fail) -> Bound:
    """[value, lower, upper] of one metric, checked."""
    if not isinstance(node, yaml.SequenceNode) or len(node.value) != 3:
        fail(node, f"'{name}' takes [reference, lower, upper], e.g. [50000, -0.05, null]")
    value, lower, upper = (_number(n, fail) for n in node.value)
    if value is not None and value <= 0:
        fail(node.value[0], f"the reference of '{name}' must be positive (or null: run A's)")
    if lower is not None and lower > 0:
        fail(node.value[1], f"the lower threshold of '{name}' is a fraction <= 0, e.g. -0.05")
    if upper is not None and upper < 0:
        fail(node.value[2], f"the upper threshold of '{name}' is a fraction >= 0, e.g. 0.05")
    if lower is None and upper is None:
        fail(node, f"'{name}' has neither a lower nor an upper threshold")
    return Bound(metric, name, value, lower, upper)


def _number(node, fail) -> float | None:
    if not isinstance(node, yaml.ScalarNode):
        fail(node, "expected a number or null")
    if node.tag.endswith(":null"):
        return None
    plain_text = node.tag.endswith(":str") and node.style is None
    if node.tag.endswith((":int", ":float")) or plain_text:
        # YAML 1.1 reads an exponent without a dot (1e12) as text; YAML 1.2 as a number
        try:
            v = float(node.value) if plain_text else float(yaml.safe_load(node.value))
        except (TypeError, ValueError):
            v = math.nan
        if math.isfinite(v):
            return v
    fail(node, f"expected a number or null, not '{node.value}'")
    return None
