"""scripts.pysource: parsing while the collector would run a finalizer that parses too."""

import ast
import gc
import sys

import pytest

from scripts import pysource

SOURCE = "x = [" + ", ".join(f"{{'k{i}': ({i}, [{i}])}}" for i in range(3000)) + "]\n"


class _ParsesWhenCollected:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it

    def __del__(self) -> None:
        # Through exec, as a logging call formats a traceback from deeper C frames.
        exec("ast.parse('a = 1')", {"ast": ast})


@pytest.fixture
def garbage_that_parses():
    """Call it right before a parse: garbage the collector finds during that parse."""
    threshold = gc.get_threshold()
    gc.set_threshold(500)  # the collector runs during the parse, as in a busy process

    def make() -> None:
        gc.collect()
        for _ in range(450):  # under the threshold: collected once the parse allocates
            _ParsesWhenCollected()

    yield make
    gc.set_threshold(*threshold)
    gc.collect()


@pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="the adapter is for 3.11's counter"
)
def test_plain_ast_parse_fails_this_way_on_3_11(garbage_that_parses):
    # When this stops failing, CPython no longer needs scripts/pysource.py: drop it.
    with pytest.raises(SystemError, match="recursion depth mismatch"):
        garbage_that_parses()
        ast.parse(SOURCE)


def test_pysource_parses_and_leaves_the_collector_as_it_was(garbage_that_parses):
    garbage_that_parses()
    tree = pysource.parse(SOURCE, "big.py")
    assert isinstance(tree.body[0], ast.Assign)
    assert gc.isenabled()
    gc.disable()
    try:
        pysource.parse("y = 1")
        assert not gc.isenabled()
    finally:
        gc.enable()
