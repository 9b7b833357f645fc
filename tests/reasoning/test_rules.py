"""The engine's rules table (reasoning/layered/rules.py) agrees with the code, the tests and the doc.

- every rule function the engine has (the Kubernetes `*_faults` and `*_victims`, the lifecycle
  stages, the board's rules, the resolution rules) has its row, and every row's function is still
  its module's own;
- every statement is one sentence, its function's docstring's first;
- every rule id is exercised by a test marked `@pytest.mark.rule("<id>")`, and every marker names a
  rule that exists;
- the engine runs the table's order: the board (Analysis), the workload stages, the namespace faults;
- docs/engine.md's rules section is the table's (`python -m scripts.rules_doc` writes it).
"""

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import reasoning.layered
import reasoning.layered.kubernetes
import reasoning.layered.kubernetes.stages
from reasoning.layered import resolution, rules
from reasoning.layered.candidates import Board
from reasoning.layered.kubernetes import faults, system
from scripts import pysource, rules_doc

ROOT = Path(__file__).resolve().parents[2]


def _modules(package):
    return [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
        if not info.ispkg
    ]


def _own_functions(module):
    return [
        f
        for _, f in inspect.getmembers(module, inspect.isfunction)
        if f.__module__ == module.__name__
    ]


def _is_board_rule(function) -> bool:
    """A public function of one Board argument returning None: how the board's rules are written."""
    if function.__name__.startswith("_"):
        return False
    params = list(inspect.signature(function).parameters.values())
    try:
        hints = inspect.get_annotations(function, eval_str=True)
    except NameError:
        # It names a type imported for type checking only (never Board, nor None): not a rule's.
        return False
    return (
        len(params) == 1
        and hints.get(params[0].name) is Board
        and hints.get("return", object) is type(None)
    )


# Functions named like rules that only run others: the namespace's faults in order, and the
# dispatch of a kube-system fault to its cluster DNS or kube-proxy victims.
DISPATCHERS = {faults._namespace_faults, system.system_victims}


def rule_functions() -> set:
    """The engine's rule functions, found in the code by how they are written and named."""
    found = set()
    for module in _modules(reasoning.layered.kubernetes):
        found |= {
            f
            for f in _own_functions(module)
            if f.__name__.endswith(("_faults", "_victims"))
        }
    for module in _modules(reasoning.layered.kubernetes.stages):
        found |= {
            f
            for f in _own_functions(module)
            if f.__name__ == module.__name__.rsplit(".", 1)[1]
        }
    for module in _modules(reasoning.layered):
        found |= {f for f in _own_functions(module) if _is_board_rule(f)}
    found |= {function for _, _, function in resolution.RULES}
    return found - DISPATCHERS


def test_every_rule_function_has_a_row_and_every_row_a_live_function():
    tabled = {rule.function for rule in rules.RULES}
    missing = sorted(f"{f.__module__}.{f.__name__}" for f in rule_functions() - tabled)
    assert missing == [], "rule functions the table does not list"
    for rule in rules.RULES:
        module = importlib.import_module(rule.function.__module__)
        assert getattr(module, rule.function.__name__, None) is rule.function, rule.id


def test_ids_are_unique_and_stages_and_layers_known():
    ids = [rule.id for rule in rules.RULES]
    assert len(ids) == len(set(ids))
    known_layers = set(reasoning.layers.LAYERS)
    for rule in rules.RULES:
        assert rule.stage in rules.STAGES, rule.id
        assert set(rule.layers) <= known_layers, rule.id
        assert set(rule.classes) <= set(rules.CLASSES), rule.id
        assert re.fullmatch(r"[a-z0-9]+\.[a-z0-9-]+", rule.id), rule.id


def test_every_statement_is_one_sentence_its_docstrings_first():
    for rule in rules.RULES:
        statement = rule.statement
        assert statement, f"{rule.id}: {rule.where} has no docstring"
        assert statement.endswith("."), f"{rule.id}: {statement!r}"
        assert not re.search(r"\.\s+[A-Z`]", statement), (
            f"{rule.id}: more than one sentence: {statement!r}"
        )
        first = inspect.getdoc(rule.function).split("\n\n", 1)[0]
        assert statement == " ".join(first.split())


def test_statement_of_reads_the_first_paragraph_only():
    def sample():
        """A rule that holds
        over two lines.

        What it returns."""

    def bare():
        pass

    assert rules.statement_of(sample) == "A rule that holds over two lines."
    assert rules.statement_of(bare) == ""


def _rule_marker(decorator: ast.expr) -> list[str] | None:
    if not (
        isinstance(decorator, ast.Call)
        and isinstance(decorator.func, ast.Attribute)
        and decorator.func.attr == "rule"
        and isinstance(decorator.func.value, ast.Attribute)
        and decorator.func.value.attr == "mark"
    ):
        return None
    ids = [a.value for a in decorator.args if isinstance(a, ast.Constant)]
    assert len(ids) == len(decorator.args), ast.unparse(decorator)
    return [str(i) for i in ids]


def marked_rules(root: Path = ROOT) -> dict[str, list[str]]:
    """Rule id → the tests marked with it, read from the source of every test module."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if "mark.rule(" not in text:
            continue  # parsing every test module costs seconds
        module = pysource.parse(text, str(path))
        for node in ast.walk(module):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for decorator in node.decorator_list:
                for rule_id in _rule_marker(decorator) or ():
                    test = f"{path.relative_to(root).as_posix()}::{node.name}"
                    found.setdefault(rule_id, []).append(test)
    return found


def test_every_rule_is_exercised_by_a_marked_test_and_every_marker_names_a_rule():
    marked = marked_rules()
    untested = [rule.id for rule in rules.RULES if rule.id not in marked]
    assert untested == [], "rules no test is marked with"
    unknown = sorted(set(marked) - set(rules.BY_ID))
    assert unknown == [], f"markers naming no rule: {marked and unknown}"


def test_the_marker_scan_sees_markers_as_pytest_does():
    """Guards the scan itself: this module's own marked test is found."""
    assert "tests/reasoning/test_rules.py::test_a_marked_example" in marked_rules().get(
        "board.excluded", []
    )


@pytest.mark.rule("board.excluded")
def test_a_marked_example(request):
    assert request.node.get_closest_marker("rule").args == ("board.excluded",)


def test_the_engine_runs_the_board_and_the_workload_stages_from_the_table():
    board = [rule.function for rule in rules.at_stage(rules.BOARD)]
    assert board[0] is rules.BY_ID["board.kubernetes"].function
    source = inspect.getsource(reasoning.layered.analysis.Analysis.__init__)
    assert "rules.at_stage(rules.BOARD)" in source
    stages = inspect.getsource(reasoning.layered.kubernetes.workloads.workload_fault)
    assert "rules.at_stage(rules.WORKLOAD)" in stages
    assert [r.id for r in rules.at_stage(rules.WORKLOAD)] == [
        "k8s.admission",
        "k8s.scheduling",
        "k8s.startup",
        "k8s.init-waits-missing-target",
        "k8s.runtime",
        "k8s.zero-replicas",
    ]


def test_the_namespace_rules_are_listed_in_the_order_the_engine_calls_them():
    tree = pysource.parse(inspect.getsource(faults))
    body = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef) and n.name == "_namespace_faults"
    )
    names = {rule.function.__name__ for rule in rules.at_stage(rules.NAMESPACE)}
    called = [
        n.func.id
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in names
    ]
    # ast.walk is breadth-first: order the calls by where they stand in the source.
    calls = sorted(
        (n.lineno, n.func.id)
        for n in ast.walk(body)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in names
    )
    assert sorted(called) == sorted(names)
    assert [name for _, name in calls] == [
        rule.function.__name__ for rule in rules.at_stage(rules.NAMESPACE)
    ]


def test_the_resolution_rules_are_resolution_s_own_in_its_order():
    assert [rule.function for rule in rules.at_stage(rules.RESOLUTION)] == [
        function for _, _, function in resolution.RULES
    ]


def test_the_doc_section_is_the_table():
    text = rules_doc.DOC.read_text(encoding="utf-8")
    found = rules_doc.current(text)
    assert found is not None, "docs/engine.md has no rules section"
    assert found == rules_doc.section(), "run `python -m scripts.rules_doc`"
    for rule in rules.RULES:
        assert f"| `{rule.id}` |" in found
