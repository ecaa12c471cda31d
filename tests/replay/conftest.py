"""The replays of the test command, run once per session in two worker processes beside its other
tests (background.py); each fixture waits for its own scenario's."""

from __future__ import annotations

import pytest

from replay.run import Result
from tests.replay import background


@pytest.fixture(scope="session")
def replayed() -> background.Replays:
    return background.session()


@pytest.fixture(scope="session")
def replays(replayed) -> dict[str, Result]:
    return replayed.results()


@pytest.fixture(scope="session", params=["healthy_days.yml", "healthy_month.yml"])
def healthy(request, replayed) -> Result:
    """The healthy cluster's life: its events in two days, and the month the issue asks for."""
    return replayed.result(request.param)


@pytest.fixture(scope="session")
def study_10b(replayed) -> Result:
    return replayed.result("study_10b.yml")


@pytest.fixture(scope="session")
def reboot_without_noout(replayed) -> Result:
    return replayed.result("reboot_without_noout.yml")


@pytest.fixture(scope="session")
def resharding_rounds(replayed) -> Result:
    return replayed.result("resharding_rounds.yml")


@pytest.fixture(scope="session")
def resharding_run(replayed) -> Result:
    return replayed.result("resharding.yml")


@pytest.fixture(scope="session")
def scrub_storm_10b(replayed) -> Result:
    return replayed.result("scrub_storm_10b.yml")


@pytest.fixture(scope="session")
def power_outage_10b(replayed) -> Result:
    return replayed.result("power_outage_10b_short.yml")


@pytest.fixture(scope="session")
def study_1b(replayed) -> Result:
    return replayed.result("study_1b.yml")


@pytest.fixture(scope="session")
def delete_wave_week(replayed) -> Result:
    return replayed.result("delete_wave_week.yml")
