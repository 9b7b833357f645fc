"""A small PromQL subset evaluated over in-memory series, for the demo back end.

Supported, and nothing else (anything else is a `PromQLError` naming what is supported):
    selectors      name{label="v", label!="v", label=~"re", label!~"re"}   (5 min lookback)
    range funcs    rate(sel[5m]), increase(sel[5m]), irate(sel[5m])        (counter resets handled)
    aggregations   sum | avg | min | max | count, with by (...) / without (...) before or after the argument
    quantiles      histogram_quantile(0.99, <vector with an "le" label>)
    arithmetic     + - * / between numbers and vectors (vector-vector matches identical label sets)

`increase` here is the increase between the first and last samples inside the range (counter resets
handled) and `rate` that increase divided by the time between those samples; Prometheus also
extrapolates both towards the range edges, so results differ slightly where series start or stop.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any

LOOKBACK_S = 300.0
SUPPORTED = (
    "selectors with label matchers, rate/increase/irate(x[range]), sum/avg/min/max/count by|without (...), "
    "histogram_quantile(q, ...), and + - * / with numbers"
)

Labels = frozenset[tuple[str, str]]


class PromQLError(ValueError):
    """A query outside the subset, or malformed; the message says what is supported."""


@dataclass
class Series:
    labels: dict[str, str]  # includes __name__
    ts: list[float] = field(default_factory=list)  # sorted Unix seconds
    values: list[float] = field(default_factory=list)


# --- tokenizer -------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![a-zA-Z_:]))
      | (?P<duration>\[\s*(?:\d+(?:ms|s|m|h|d|w|y))+\s*\])
      | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<ident>[a-zA-Z_:][a-zA-Z0-9_:]*)
      | (?P<op>=~|!~|!=|==|[-+*/=(){},])
    )""",
    re.VERBOSE,
)
_DURATION_PART = re.compile(r"(\d+)(ms|s|m|h|d|w|y)")
_UNIT_S = {
    "ms": 0.001,
    "s": 1,
    "m": 60,
    "h": 3600,
    "d": 86400,
    "w": 604800,
    "y": 31536000,
}
_AGGREGATIONS = {"sum", "avg", "min", "max", "count"}
_RANGE_FUNCS = {"rate", "increase", "irate"}


def _tokenize(query: str) -> list[tuple[str, str]]:
    tokens = []
    pos = 0
    query = query.rstrip()
    while pos < len(query):
        match = _TOKEN.match(query, pos)
        if not match or match.end() == pos:
            raise PromQLError(
                f"cannot parse the query at {query[pos : pos + 20]!r}; the demo back end supports {SUPPORTED}"
            )
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


# --- AST and parser -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Matcher:
    name: str
    op: str
    value: str

    def matches(self, labels: dict[str, str]) -> bool:
        actual = labels.get(self.name, "")
        if self.op == "=":
            return actual == self.value
        if self.op == "!=":
            return actual != self.value
        found = re.fullmatch(self.value, actual) is not None
        return found if self.op == "=~" else not found


@dataclass(frozen=True)
class Selector:
    matchers: tuple[Matcher, ...]
    range_s: float | None = None


@dataclass(frozen=True)
class Number:
    value: float


@dataclass(frozen=True)
class RangeFunc:
    name: str
    selector: Selector


@dataclass(frozen=True)
class Aggregate:
    op: str
    by: tuple[str, ...] | None
    without: tuple[str, ...] | None
    expr: Any


@dataclass(frozen=True)
class Quantile:
    q: float
    expr: Any


@dataclass(frozen=True)
class Binary:
    op: str
    left: Any
    right: Any


class _Parser:
    def __init__(self, query: str) -> None:
        self.tokens = _tokenize(query)
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(
        self, value: str | None = None, kind: str | None = None
    ) -> tuple[str, str]:
        token = self.peek()
        if (
            token is None
            or (value is not None and token[1] != value)
            or (kind is not None and token[0] != kind)
        ):
            got = "end of query" if token is None else repr(token[1])
            raise PromQLError(f"expected {value or kind} but found {got}")
        self.pos += 1
        return token

    def at(self, value: str) -> bool:
        token = self.peek()
        return token is not None and token[1] == value and token[0] in ("op", "ident")

    def parse(self) -> Any:
        expr = self.expr()
        if self.peek() is not None:
            raise PromQLError(
                f"unexpected {self.peek()[1]!r}; the demo back end supports {SUPPORTED}"
            )  # type: ignore[index]
        return expr

    def expr(self) -> Any:
        node = self.term()
        while self.at("+") or self.at("-"):
            op = self.take()[1]
            node = Binary(op, node, self.term())
        return node

    def term(self) -> Any:
        node = self.primary()
        while self.at("*") or self.at("/"):
            op = self.take()[1]
            node = Binary(op, node, self.primary())
        return node

    def primary(self) -> Any:
        token = self.peek()
        if token is None:
            raise PromQLError("the query ended early")
        kind, value = token
        if kind == "number":
            self.take()
            return Number(float(value))
        if value == "-" and kind == "op":
            self.take()
            return Binary("*", Number(-1.0), self.primary())
        if value == "(" and kind == "op":
            self.take()
            node = self.expr()
            self.take(")")
            return node
        if value == "{" and kind == "op":
            return self.selector(None)
        if kind != "ident":
            raise PromQLError(
                f"unexpected {value!r}; the demo back end supports {SUPPORTED}"
            )
        self.take()
        if value in _AGGREGATIONS:
            return self.aggregation(value)
        if value in _RANGE_FUNCS:
            self.take("(")
            selector = self.selector(self.take(kind="ident")[1])
            self.take(")")
            if selector.range_s is None:
                raise PromQLError(
                    f"{value}() needs a range, e.g. {value}(http_requests_total[5m])"
                )
            return RangeFunc(value, selector)
        if value == "histogram_quantile":
            self.take("(")
            q = self.take(kind="number")[1]
            self.take(",")
            node = self.expr()
            self.take(")")
            return Quantile(float(q), node)
        if self.at("("):
            raise PromQLError(
                f"function {value}() is not supported by the demo back end; it supports {SUPPORTED}"
            )
        return self.selector(value)

    def selector(self, name: str | None) -> Selector:
        matchers = [Matcher("__name__", "=", name)] if name else []
        if self.at("{"):
            self.take("{")
            while not self.at("}"):
                label = self.take(kind="ident")[1]
                op = self.take(kind="op")[1]
                if op not in ("=", "!=", "=~", "!~"):
                    raise PromQLError(f"unknown label matcher {op!r}; use = != =~ !~")
                raw = self.take(kind="string")[1]
                text = bytes(raw[1:-1], "utf-8").decode("unicode_escape")
                if op in ("=~", "!~"):
                    try:
                        re.compile(text)
                    except re.error as exc:
                        raise PromQLError(
                            f"bad regular expression {text!r}: {exc}"
                        ) from exc
                matchers.append(Matcher(label, op, text))
                if not self.at("}"):
                    self.take(",")
            self.take("}")
        if not matchers:
            raise PromQLError(
                "a selector needs a metric name or at least one label matcher"
            )
        range_s = None
        token = self.peek()
        if token is not None and token[0] == "duration":
            self.take()
            range_s = sum(
                int(n) * _UNIT_S[u] for n, u in _DURATION_PART.findall(token[1])
            )
        return Selector(tuple(matchers), range_s)

    def aggregation(self, op: str) -> Aggregate:
        by, without = self.grouping()
        self.take("(")
        expr = self.expr()
        self.take(")")
        if by is None and without is None:
            by, without = self.grouping()
        return Aggregate(op, by, without, expr)

    def grouping(self) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
        if not (self.at("by") or self.at("without")):
            return None, None
        keyword = self.take()[1]
        self.take("(")
        labels = []
        while not self.at(")"):
            labels.append(self.take(kind="ident")[1])
            if not self.at(")"):
                self.take(",")
        self.take(")")
        return (tuple(labels), None) if keyword == "by" else (None, tuple(labels))


def parse(query: str) -> Any:
    """Parse a query in the supported subset.

    Raises:
        PromQLError: the query is malformed or uses something outside the subset.
    """
    if not query.strip():
        raise PromQLError("the query is empty")
    return _Parser(query).parse()


# --- evaluation ---------------------------------------------------------------------------------

InstantVector = dict[Labels, float]


class Evaluator:
    """Evaluates a parsed query at a series of timestamps over a fixed set of series."""

    def __init__(self, series: list[Series]) -> None:
        self.series = series

    def range_query(
        self, query: str, *, start: float, end: float, step: float
    ) -> list[Series]:
        ast = parse(query)
        selected = self._preselect(ast)
        out: dict[Labels, Series] = {}
        steps = math.floor((end - start) / step + 1e-9) + 1
        for i in range(steps):
            t = start + i * step
            value = self._eval(ast, t, selected)
            if isinstance(value, float):
                value = {frozenset(): value}
            for labels, v in value.items():
                if math.isnan(v) and not labels:
                    continue
                series = out.setdefault(labels, Series(dict(labels)))
                series.ts.append(t)
                series.values.append(v)
        return sorted(out.values(), key=lambda s: sorted(s.labels.items()))

    def _preselect(self, ast: Any) -> dict[Selector, list[Series]]:
        found: dict[Selector, list[Series]] = {}

        def walk(node: Any) -> None:
            if isinstance(node, Selector):
                found[node] = [
                    s
                    for s in self.series
                    if all(m.matches(s.labels) for m in node.matchers)
                ]
            elif isinstance(node, RangeFunc):
                walk(node.selector)
            elif isinstance(node, Aggregate | Quantile):
                walk(node.expr)
            elif isinstance(node, Binary):
                walk(node.left)
                walk(node.right)

        walk(ast)
        return found

    def _eval(
        self, node: Any, t: float, selected: dict[Selector, list[Series]]
    ) -> InstantVector | float:
        if isinstance(node, Number):
            return node.value
        if isinstance(node, Selector):
            if node.range_s is not None:
                raise PromQLError(
                    "a range selector such as x[5m] must be inside rate(), increase() or irate()"
                )
            return self._instant(selected[node], t)
        if isinstance(node, RangeFunc):
            return self._range_func(node, selected[node.selector], t)
        if isinstance(node, Aggregate):
            return self._aggregate(node, self._vector(node.expr, t, selected))
        if isinstance(node, Quantile):
            return _histogram_quantile(node.q, self._vector(node.expr, t, selected))
        assert isinstance(node, Binary)
        return _binary(
            node.op,
            self._eval(node.left, t, selected),
            self._eval(node.right, t, selected),
        )

    def _vector(
        self, node: Any, t: float, selected: dict[Selector, list[Series]]
    ) -> InstantVector:
        value = self._eval(node, t, selected)
        if isinstance(value, float):
            raise PromQLError(
                "expected a vector (a selector or function over one) where a number was given"
            )
        return value

    @staticmethod
    def _instant(series: list[Series], t: float) -> InstantVector:
        out = {}
        for s in series:
            i = bisect.bisect_right(s.ts, t) - 1
            if i >= 0 and t - s.ts[i] <= LOOKBACK_S:
                out[frozenset(s.labels.items())] = s.values[i]
        return out

    @staticmethod
    def _range_func(node: RangeFunc, series: list[Series], t: float) -> InstantVector:
        assert node.selector.range_s is not None
        out = {}
        for s in series:
            lo = bisect.bisect_right(s.ts, t - node.selector.range_s)
            hi = bisect.bisect_right(s.ts, t)
            if hi - lo < 2:
                continue
            ts, vs = s.ts[lo:hi], s.values[lo:hi]
            labels = frozenset((k, v) for k, v in s.labels.items() if k != "__name__")
            if node.name == "irate":
                delta = vs[-1] - vs[-2] if vs[-1] >= vs[-2] else vs[-1]
                out[labels] = delta / (ts[-1] - ts[-2])
                continue
            increase = sum((b - a) if b >= a else b for a, b in itertools.pairwise(vs))
            rate = increase / (ts[-1] - ts[0])
            out[labels] = rate if node.name == "rate" else increase
        return out

    @staticmethod
    def _aggregate(node: Aggregate, vector: InstantVector) -> InstantVector:
        groups: dict[Labels, list[float]] = {}
        for labels, value in vector.items():
            if node.by is not None or node.without is None:
                by = node.by or ()
                key = frozenset((k, v) for k, v in labels if k in by)
            else:
                drop = set(node.without or ()) | {"__name__"}
                key = frozenset((k, v) for k, v in labels if k not in drop)
            groups.setdefault(key, []).append(value)
        reduce = {
            "sum": sum,
            "avg": lambda vs: sum(vs) / len(vs),
            "min": min,
            "max": max,
            "count": lambda vs: float(len(vs)),
        }[node.op]
        return {key: float(reduce(values)) for key, values in groups.items()}


def _histogram_quantile(q: float, vector: InstantVector) -> InstantVector:
    groups: dict[Labels, list[tuple[float, float]]] = {}
    for labels, value in vector.items():
        le = dict(labels).get("le")
        if le is None:
            continue
        key = frozenset((k, v) for k, v in labels if k not in ("le", "__name__"))
        groups.setdefault(key, []).append((float(le.replace("+Inf", "inf")), value))
    out = {}
    for key, buckets in groups.items():
        out[key] = _bucket_quantile(q, sorted(buckets))
    return out


def _bucket_quantile(q: float, buckets: list[tuple[float, float]]) -> float:
    """Prometheus' bucketQuantile: linear interpolation inside the bucket holding the rank."""
    if q < 0:
        return -math.inf
    if q > 1:
        return math.inf
    if len(buckets) < 2 or not math.isinf(buckets[-1][0]):
        return math.nan
    # Cumulative counts must not decrease; rates can make them wobble slightly.
    counts = []
    for _, count in buckets:
        counts.append(max(count, counts[-1]) if counts else count)
    total = counts[-1]
    if total == 0 or math.isnan(total):
        return math.nan
    rank = q * total
    b = next(i for i, c in enumerate(counts) if c >= rank)
    if b == len(buckets) - 1:
        return buckets[-2][0]
    if b == 0 and buckets[0][0] <= 0:
        return buckets[0][0]
    start = 0.0 if b == 0 else buckets[b - 1][0]
    end = buckets[b][0]
    count = counts[b] - (0.0 if b == 0 else counts[b - 1])
    rank -= 0.0 if b == 0 else counts[b - 1]
    return start + (end - start) * (rank / count) if count else end


def _apply(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return a / b


def _binary(
    op: str, left: InstantVector | float, right: InstantVector | float
) -> InstantVector | float:
    if isinstance(left, float) and isinstance(right, float):
        return _apply(op, left, right)
    if isinstance(left, float):
        assert isinstance(right, dict)
        return {_drop_name(k): _apply(op, left, v) for k, v in right.items()}
    if isinstance(right, float):
        return {_drop_name(k): _apply(op, v, right) for k, v in left.items()}
    rights = {_drop_name(k): v for k, v in right.items()}
    out = {}
    for labels, value in left.items():
        key = _drop_name(labels)
        if key in rights:
            out[key] = _apply(op, value, rights[key])
    return out


def _drop_name(labels: Labels) -> Labels:
    return frozenset((k, v) for k, v in labels if k != "__name__")
