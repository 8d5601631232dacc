"""Shared set-up of the binding's tests: they run against the installed `trailgate` wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

#: The repository's golden cases; the tests read them and never write there.
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
