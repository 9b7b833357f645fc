"""kubectl command lines as data: the one canonical form a tool call and a snapshot key are both reduced to.

`Command.line()` is the canonical text (`kubectl get pods cart-x -n shop -o wide`), `Command.args()`
the argv a live back end runs, and `parse_command_line` reads what an engineer typed, in any flag
order and spelling, with trailing shell filters (`--sort-by=…`, `| tail -n 20`) split off.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace

from mcpservers.kubernetes.kinds import Kind, find_kind

VERBS = ("get", "describe", "logs", "events")
OUTPUTS = ("", "wide", "yaml", "json")


@dataclass(frozen=True)
class Command:
    """One read-only kubectl command, already validated."""

    verb: str  # get | describe | logs | events
    namespace: str
    kind: Kind | None = None  # get, describe; logs read pods, events may filter by kind
    name: str = (
        ""  # get / describe: one object; logs: the pod; events: the --for object's name
    )
    output: str = ""  # get: "" | wide | yaml | json; events: "" | json
    show_labels: bool = False
    selector: str = ""  # normalised label selector
    container: str = ""
    is_previous: bool = False
    tail: int | None = None
    # get only: two or more kinds in one `kubectl get k1,k2 …` (then `kind` is None), in the
    # order asked, which is the order kubectl prints their tables in.
    kinds: tuple[Kind, ...] = ()

    def __post_init__(self) -> None:
        # A node or a storage class has no namespace: one key whatever namespace was asked.
        if self.is_cluster_scoped and self.namespace:
            object.__setattr__(self, "namespace", "")

    @property
    def is_cluster_scoped(self) -> bool:
        return (
            self.kind is not None
            and not self.kind.is_namespaced
            and self.verb in ("get", "describe")
        )

    @property
    def is_multi_kind(self) -> bool:
        return len(self.kinds) > 1

    def one_kind(self, kind: Kind) -> Command:
        """The same `get`, of one of its kinds only."""
        return replace(self, kind=kind, kinds=())

    def args(self) -> list[str]:
        """The arguments after `kubectl`, as separate argv words (never a shell string)."""
        out: list[str] = [self.verb]
        if self.is_multi_kind:
            out.append(",".join(k.resource for k in self.kinds))
        elif self.verb in ("get", "describe"):
            assert self.kind is not None
            out.append(self.kind.resource)
            if self.name:
                out.append(self.name)
        elif self.verb == "logs":
            out.append(self.name)
        if not self.is_cluster_scoped:
            out += ["-n", self.namespace]
        if self.verb == "events" and self.kind is not None:
            out.append(f"--for={self.kind.singular}/{self.name}")
        if self.output:
            out += ["-o", self.output]
        if self.show_labels:
            out.append("--show-labels")
        if self.selector:
            out += ["-l", self.selector]
        if self.container:
            out += ["-c", self.container]
        if self.is_previous:
            out.append("--previous")
        if self.tail is not None:
            out.append(f"--tail={self.tail}")
        return out

    def line(self) -> str:
        """The canonical command line: the snapshot key this command is stored and looked up under."""
        return shlex.join(["kubectl", *self.args()])


@dataclass(frozen=True)
class ParsedLine:
    """A snapshot key read back: the command, plus what narrows or reorders its answer."""

    command: Command
    sort_by: str = ""
    pipes: tuple[str, ...] = ()  # shell filters after the command, e.g. ("tail -n 20",)
    tail_lines: int | None = None  # `| tail -n N`: only the last N lines were kept

    @property
    def is_complete(self) -> bool:
        """True when the answer holds everything the command printed (no head/tail/grep cut)."""
        return not self.pipes


class UnsupportedLine(ValueError):
    """A snapshot key no tool can ask for (another verb, several kinds, a format we do not read)."""


@dataclass
class _Flags:
    namespace: str = ""
    output: str = ""
    show_labels: bool = False
    selector: str = ""
    container: str = ""
    is_previous: bool = False
    tail: int | None = None
    sort_by: str = ""
    for_object: str = ""
    field_selector: str = ""
    positionals: list[str] = field(default_factory=list)


# Flags that take a value, by every spelling; global flags are read and dropped.
_VALUE_FLAGS = {
    "-n": "namespace",
    "--namespace": "namespace",
    "-o": "output",
    "--output": "output",
    "-l": "selector",
    "--selector": "selector",
    "-c": "container",
    "--container": "container",
    "--tail": "tail",
    "--sort-by": "sort_by",
    "--for": "for_object",
    "--field-selector": "field_selector",
    "--context": "",
    "--kubeconfig": "",
    "--cluster": "",
    "--user": "",
    "--request-timeout": "",
    "-v": "",
    "--v": "",
}
_BOOL_FLAGS = {
    "--show-labels": "show_labels",
    "-p": "is_previous",
    "--previous": "is_previous",
}
_TAIL_PIPE = re.compile(r"^tail\s+(?:-n\s*|--lines=|-)(\d+)$")


def parse_command_line(text: str) -> ParsedLine:
    """Read a kubectl command line as an engineer typed it.

    Raises:
        UnsupportedLine: not a kubectl command, or one no tool of this server asks.
    """
    command_part, *pipe_parts = _split_pipes(text)
    try:
        words = shlex.split(command_part)
    except ValueError as exc:
        raise UnsupportedLine(f"cannot read it as a command line ({exc})") from None
    if not words or words[0] != "kubectl":
        raise UnsupportedLine("it does not start with 'kubectl'")
    flags = _Flags()
    verb = ""
    for word in _flag_words(words[1:], flags):
        if not verb:
            verb = word
        else:
            flags.positionals.append(word)
    if verb not in VERBS:
        raise UnsupportedLine(f"verb {verb!r} is none of {', '.join(VERBS)}")
    pipes = tuple(p.strip() for p in pipe_parts)
    tail_lines = None
    for pipe in pipes:
        match = _TAIL_PIPE.match(pipe)
        if match and pipe is pipes[-1]:
            tail_lines = int(match.group(1))
        elif not re.match(r"^(?:grep|head|tail)\b", pipe):
            raise UnsupportedLine(f"shell filter {pipe!r} is not grep, head or tail")
    command = _command(verb, flags)
    if command.verb == "logs" and tail_lines is not None and pipes == pipes[-1:]:
        # `kubectl logs x | tail -n 50` is `kubectl logs x --tail=50`.
        tail = (
            tail_lines
            if command.tail is None or command.tail < 0
            else min(command.tail, tail_lines)
        )
        return ParsedLine(replace(command, tail=tail), sort_by=flags.sort_by)
    return ParsedLine(
        command, sort_by=flags.sort_by, pipes=pipes, tail_lines=tail_lines
    )


def _split_pipes(text: str) -> list[str]:
    """Split on `|` outside quotes (a selector or a grep pattern may hold one in quotes)."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "|":
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def _flag_words(words: list[str], flags: _Flags) -> list[str]:
    """Consume flags into `flags`, returning the other words in order."""
    rest: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not word.startswith("-") or word == "-":
            rest.append(word)
            continue
        name, eq, value = word.partition("=")
        if name in _BOOL_FLAGS:
            if eq and value.lower() not in ("true", "false"):
                raise UnsupportedLine(f"flag {word!r} wants true or false")
            setattr(flags, _BOOL_FLAGS[name], not eq or value.lower() == "true")
            continue
        if (
            name not in _VALUE_FLAGS
            and len(name) > 2
            and name[1] != "-"
            and name[:2] in _VALUE_FLAGS
        ):
            # -nshop, -owide, -lapp=cart: a short flag glued to its value
            name, value, eq = name[:2], word[2:].removeprefix("="), "="
        if name not in _VALUE_FLAGS:
            raise UnsupportedLine(f"flag {name!r} is not one this server reads")
        if not eq:
            if index >= len(words):
                raise UnsupportedLine(f"flag {name!r} has no value")
            value = words[index]
            index += 1
        attribute = _VALUE_FLAGS[name]
        if attribute:
            setattr(flags, attribute, value)
    return rest


def _command(verb: str, flags: _Flags) -> Command:
    output = flags.output.lower()
    if output not in OUTPUTS:
        raise UnsupportedLine(f"output {flags.output!r} is none of wide, yaml, json")
    if not flags.namespace and verb != "get" and verb != "describe":
        raise UnsupportedLine("it names no namespace (-n NS)")
    kind: Kind | None = None
    name = ""
    tail = None
    if flags.tail:
        try:
            tail = int(flags.tail)
        except ValueError:
            raise UnsupportedLine(f"--tail {flags.tail!r} is not a number") from None
        tail = None if tail < 0 else tail
    if verb == "get" and flags.positionals and "," in flags.positionals[0]:
        return _multi_kind(flags, output)
    if verb in ("get", "describe"):
        kind, name = _resource(flags.positionals)
        if (
            kind.resource == "events"
            and verb == "get"
            and not name
            and output != "yaml"
        ):
            return _events(
                flags, field_selector=flags.field_selector, output=output, via_get=True
            )
        if not flags.namespace and kind.is_namespaced:
            raise UnsupportedLine("it names no namespace (-n NS)")
        if flags.field_selector:
            raise UnsupportedLine("--field-selector is read only on events")
    elif verb == "logs":
        if len(flags.positionals) != 1:
            raise UnsupportedLine("logs takes one pod")
        pod = flags.positionals[0]
        head, slash, tail_name = pod.partition("/")
        if slash:
            pod_kind = find_kind(head)
            if pod_kind is None or pod_kind.resource != "pods":
                raise UnsupportedLine(
                    "logs of anything but a pod (deploy/x picks a pod at random)"
                )
            pod = tail_name
        name = pod
    else:
        if flags.positionals:
            raise UnsupportedLine("events takes no positional arguments")
        return _events(
            flags, field_selector=flags.field_selector, output=output, via_get=False
        )
    return Command(
        verb=verb,
        namespace=""
        if kind is not None and not kind.is_namespaced
        else flags.namespace,
        kind=kind,
        name=name,
        output=output if verb == "get" else "",
        show_labels=flags.show_labels and verb == "get",
        selector=normalize_selector(flags.selector) if flags.selector else "",
        container=flags.container if verb == "logs" else "",
        is_previous=flags.is_previous and verb == "logs",
        tail=tail if verb == "logs" else None,
    )


def _multi_kind(flags: _Flags, output: str) -> Command:
    """`kubectl get pods,deploy -n NS [-o wide] [--show-labels] [-l SEL]`: several kinds, no name."""
    first, *names = flags.positionals
    if names or "/" in first:
        raise UnsupportedLine("several kinds with an object name (get deploy,svc x)")
    kinds: list[Kind] = []
    for word in first.split(","):
        kind = find_kind(word)
        if kind is None:
            raise UnsupportedLine(f"kind {word!r} is not in the server's table")
        if kind in kinds or not kind.is_namespaced:
            raise UnsupportedLine(f"kind {word!r} repeated or without a namespace")
        kinds.append(kind)
    if not flags.namespace:
        raise UnsupportedLine("it names no namespace (-n NS)")
    if output not in ("", "wide") or flags.field_selector:
        raise UnsupportedLine("several kinds read as tables only (no -o yaml/json)")
    if len(kinds) == 1:
        return Command(
            "get",
            flags.namespace,
            kind=kinds[0],
            output=output,
            show_labels=flags.show_labels,
            selector=normalize_selector(flags.selector) if flags.selector else "",
        )
    return Command(
        "get",
        flags.namespace,
        output=output,
        show_labels=flags.show_labels,
        selector=normalize_selector(flags.selector) if flags.selector else "",
        kinds=tuple(kinds),
    )


def _resource(positionals: list[str]) -> tuple[Kind, str]:
    if not positionals:
        raise UnsupportedLine("it names no resource")
    first, *names = positionals
    if "," in first:
        raise UnsupportedLine("several kinds in one command (get deploy,svc)")
    head, slash, name = first.partition("/")
    kind = find_kind(head)
    if kind is None:
        raise UnsupportedLine(f"kind {head!r} is not in the server's table")
    if slash:
        names = [name, *names]
    if len(names) > 1:
        raise UnsupportedLine("several names in one command")
    return kind, names[0] if names else ""


def _events(
    flags: _Flags, *, field_selector: str, output: str, via_get: bool
) -> Command:
    """`kubectl events -n NS [--for kind/name]`; `kubectl get events` is kept as a get of events."""
    kind: Kind | None = None
    name = ""
    if flags.for_object:
        kind_text, slash, name = flags.for_object.partition("/")
        kind = find_kind(kind_text) if slash else None
        if kind is None:
            raise UnsupportedLine(f"--for {flags.for_object!r} is not kind/name")
    if field_selector:
        fields = dict(part.partition("=")[::2] for part in field_selector.split(","))
        fields = {key.strip(): value.strip() for key, value in fields.items()}
        kind = find_kind(fields.pop("involvedObject.kind", ""))
        name = fields.pop("involvedObject.name", "")
        fields.pop("involvedObject.namespace", None)
        if kind is None or not name or fields:
            raise UnsupportedLine(
                "--field-selector other than involvedObject.kind=K,involvedObject.name=N"
            )
    if not flags.namespace:
        raise UnsupportedLine("it names no namespace (-n NS)")
    if via_get:
        if kind is not None or output not in ("", "wide", "json"):
            # `get events --field-selector …` is an events question for one object
            return Command(
                "events",
                flags.namespace,
                kind=kind,
                name=name,
                output="json" if output == "json" else "",
            )
        return Command("get", flags.namespace, kind=find_kind("events"), output=output)
    if output not in ("", "json", "yaml"):
        raise UnsupportedLine(f"events -o {output}")
    return Command("events", flags.namespace, kind=kind, name=name, output=output)


# --- label selectors ------------------------------------------------------------------------

_LABEL_KEY = r"(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_LABEL_VALUE = r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?"
_REQUIREMENT = re.compile(
    rf"^\s*(?:(?P<not>!)\s*(?P<nkey>{_LABEL_KEY})"
    rf"|(?P<key>{_LABEL_KEY})\s*(?:(?P<op>==|!=|=)\s*(?P<value>{_LABEL_VALUE})"
    rf"|\s(?P<setop>in|notin)\s*\((?P<values>\s*{_LABEL_VALUE}(?:\s*,\s*{_LABEL_VALUE})*\s*)\))?)\s*$"
)


class BadSelector(ValueError):
    """A label selector outside Kubernetes' grammar."""


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # = != in notin exists !
    values: tuple[str, ...] = ()

    def text(self) -> str:
        if self.op == "exists":
            return self.key
        if self.op == "!":
            return f"!{self.key}"
        if self.op in ("in", "notin"):
            return f"{self.key} {self.op} ({','.join(self.values)})"
        return f"{self.key}{self.op}{self.values[0]}"

    def matches(self, labels: dict[str, str]) -> bool:
        value = labels.get(self.key)
        if self.op == "exists":
            return value is not None
        if self.op == "!":
            return value is None
        if self.op == "=":
            return value == self.values[0]
        if self.op == "!=":
            return value != self.values[0]
        if self.op == "in":
            return value in self.values
        return value not in self.values


def parse_selector(text: str) -> tuple[Requirement, ...]:
    """Parse a label selector (`app=cart,tier!=web`, `env in (a,b)`, `!canary`).

    Raises:
        BadSelector: anything outside the grammar, with the part that is wrong.
    """
    if len(text) > 1000:
        raise BadSelector("a label selector of more than 1000 characters")
    requirements = []
    for part in _split_requirements(text):
        match = _REQUIREMENT.match(part)
        if not match:
            raise BadSelector(
                f"{part.strip()!r} is not a label requirement (key=value, key!=value, key in (a,b), key notin (a,b), key or !key)"
            )
        if match["nkey"]:
            requirements.append(Requirement(match["nkey"], "!"))
        elif match["op"]:
            op = "=" if match["op"] == "==" else match["op"]
            requirements.append(Requirement(match["key"], op, (match["value"],)))
        elif match["setop"]:
            values = tuple(sorted({v.strip() for v in match["values"].split(",")}))
            requirements.append(Requirement(match["key"], match["setop"], values))
        else:
            requirements.append(Requirement(match["key"], "exists"))
    if not requirements:
        raise BadSelector("an empty label selector")
    return tuple(sorted(set(requirements), key=lambda r: (r.key, r.op, r.values)))


def normalize_selector(text: str) -> str:
    """The selector in one spelling: requirements sorted, no spaces, `==` as `=`.

    Raises:
        BadSelector: see `parse_selector`.
    """
    return ",".join(r.text() for r in parse_selector(text))


def selector_matches(selector: str, labels: dict[str, str]) -> bool:
    return all(r.matches(labels) for r in parse_selector(selector))


def _split_requirements(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p.strip()] if any(p.strip() for p in parts) else []
