"""The one place the tests reach into pytest's and pytest-django's private attributes.

The browser tests order themselves by the stack their fixtures ask for and stop a shared stack
between two tests, outside any test's database access. Neither library offers that publicly:
pytest keeps an item's parameters in `item.callspec` and its resolved fixture definitions in `item._fixtureinfo` (and a definition's
own arguments in `FixtureDef.argnames`, a type pytest exports for annotations only), and
pytest-django keeps its database blocker under `blocking_manager_key` in the config's stash (its
public `django_db_blocker` fixture cannot be requested from a hook). An upgrade may rename or
remove any of these; tests/test_pytest_internals.py then fails, naming the attribute, before
the browser tests misbehave in less obvious ways.
"""

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pytest


def fixture_definitions(item: pytest.Item) -> Mapping[str, Sequence[Any]]:
    """The item's fixtures by name, each with its definitions from the outermost (a conftest's)
    to the one that applies (the last, e.g. a test module's override)."""
    return item._fixtureinfo.name2fixturedefs  # type: ignore[attr-defined, no-any-return]


def parameters(item: pytest.Item) -> Mapping[str, Any]:
    """The item's parametrized arguments by name (an indirect one's `request.param` too); empty
    for a test that is not parametrized. pytest's own documentation uses `item.callspec`, but
    its type (CallSpec2) is private."""
    callspec = getattr(item, "callspec", None)
    return {} if callspec is None else callspec.params


def fixture_arguments(definition: Any) -> tuple[str, ...]:
    """The names of the fixtures a definition (an entry of fixture_definitions) asks for."""
    return tuple(definition.argnames)


@contextmanager
def database_unblocked(config: pytest.Config) -> Iterator[None]:
    """Database access allowed, from a hook: what the `django_db_blocker` fixture's `unblock()`
    gives a fixture."""
    from pytest_django.plugin import blocking_manager_key

    with config.stash[blocking_manager_key].unblock():
        yield
