"""reasoning/ is Django-free: its tests need no database, so the suite-wide fixture that ends
stray database sessions (and, through django_db_setup, creates the test database) is off here."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def _end_stray_sessions_before_dropping_the_test_database():
    yield
