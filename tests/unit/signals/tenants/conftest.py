from __future__ import annotations

import pytest

from tests.unit.signals.tenants.study import Study, grown_study


@pytest.fixture(scope="package")
def study() -> Study:
    return grown_study()
