"""The patterns the engine sends to the logs server as `regex` searches are RE2: no look-around, no
backreference. The server refuses any other with a tool error, and the search then finds nothing
(a driver-name lookbehind in the kernel search once hid every conntrack line)."""

import importlib
import pkgutil
import re

import pytest

import reasoning.layered
from mcpservers.logs.backends import _compiled
from reasoning.layered.kubernetes import kernel


def _search_constants() -> list[tuple[str, str]]:
    found = []
    for info in pkgutil.walk_packages(reasoning.layered.__path__, "reasoning.layered."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            upper = name.lstrip("_").isupper()
            if (
                isinstance(value, str)
                and upper
                and ("SEARCH" in name or "QUERY" in name)
            ):
                found.append((f"{info.name}.{name}", value))
    return found


CONSTANTS = _search_constants()


def test_there_are_search_patterns_to_check():
    assert len(CONSTANTS) > 20


@pytest.mark.parametrize(("name", "pattern"), CONSTANTS, ids=[n for n, _ in CONSTANTS])
def test_a_search_pattern_is_one_the_logs_server_accepts(name, pattern):
    _compiled(pattern)


def test_the_kernel_search_finds_a_full_table_and_an_adapter_reset():
    search = re.compile(kernel.SEARCH, re.IGNORECASE)
    assert search.search("nf_conntrack: table full, dropping packet")
    assert search.search(
        "ixgbe 0000:3b:00.1 eth2: Detected Tx Unit Hang; Reset adapter"
    )
    assert search.search("mlx5_core 0000:5e:00.0: link is down")
    assert not search.search("slice-reset completed for tenant 7")


# The logs server's search_logs takes a query of at most this many characters
# (mcpservers/logs/server.py, `max_length` of `query`); a longer one is refused by its schema.
QUERY_MAX = 500


@pytest.mark.parametrize(("name", "pattern"), CONSTANTS, ids=[n for n, _ in CONSTANTS])
def test_a_search_pattern_fits_the_logs_servers_query_length(name, pattern):
    assert len(pattern) <= QUERY_MAX
