"""tests/pytest_internals.py still reads what pytest and pytest-django keep privately: each test
here fails after an upgrade that renames or changes what the browser tests rely on, saying
which attribute to look for."""

import pytest
from django.db import connection

from tests import pytest_internals

UPGRADED = "changed in the installed {}: update tests/pytest_internals.py ({})"


@pytest.fixture
def anyio_backend() -> str:
    """An override of tests/conftest.py's fixture: its item then sees both definitions."""
    return "asyncio"


@pytest.fixture
def asks_for_settings(settings, anyio_backend):
    return settings


@pytest.fixture
def kind(request):
    return request.param


def test_an_items_fixture_definitions_list_an_override_last_with_its_arguments(
    request, asks_for_settings
):
    try:
        definitions = pytest_internals.fixture_definitions(request.node)
    except AttributeError as error:
        pytest.fail(UPGRADED.format("pytest", f"Item._fixtureinfo: {error}"))
    assert "asks_for_settings" in definitions, UPGRADED.format(
        "pytest", "FuncFixtureInfo.name2fixturedefs no longer holds a requested fixture"
    )
    # anyio's plugin, tests/conftest.py and this module each define one, outermost first.
    places = [d.baseid for d in definitions["anyio_backend"]]
    assert places[-2:] == ["tests", "tests/test_pytest_internals.py"], UPGRADED.format(
        "pytest", f"name2fixturedefs lists the definitions as {places!r}"
    )
    try:
        arguments = pytest_internals.fixture_arguments(
            definitions["asks_for_settings"][-1]
        )
    except AttributeError as error:
        pytest.fail(UPGRADED.format("pytest", f"FixtureDef.argnames: {error}"))
    assert arguments == ("settings", "anyio_backend"), UPGRADED.format(
        "pytest", f"FixtureDef.argnames is {arguments!r}"
    )


@pytest.mark.parametrize("kind", ["debug"], indirect=True)
def test_an_indirect_parameter_is_among_the_items_parameters(request, kind):
    assert kind == "debug"
    assert pytest_internals.parameters(request.node) == {"kind": "debug"}, (
        UPGRADED.format("pytest", "Function.callspec.params")
    )


def test_a_test_that_is_not_parametrized_has_no_parameters(request):
    assert pytest_internals.parameters(request.node) == {}


@pytest.mark.django_db  # so pytest-django sets up the test database, which a lone run would skip
def test_the_database_is_unblocked_inside_and_blocked_again_after(
    request, django_db_blocker
):
    """Blocked as a test without the mark is, the database answers inside the adapter's unblock
    (a hook's way in) and is blocked again after it."""
    with django_db_blocker.block():
        with pytest.raises(RuntimeError, match="Database access not allowed"):
            connection.ensure_connection()
        try:
            with (
                pytest_internals.database_unblocked(request.config),
                connection.cursor() as cursor,
            ):
                cursor.execute("SELECT current_database()")
                (name,) = cursor.fetchone()
        except (ImportError, KeyError) as error:
            pytest.fail(
                UPGRADED.format(
                    "pytest-django", f"plugin.blocking_manager_key: {error}"
                )
            )
        assert name.startswith("test_")
        with pytest.raises(RuntimeError, match="Database access not allowed"):
            connection.ensure_connection()
