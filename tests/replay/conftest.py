"""The replays of the test command, run once per session, two at a time (one per core), started
as the session begins (background.py)."""

from __future__ import annotations

import pytest

from replay.run import Result
from tests.replay import background


@pytest.fixture(scope="session")
def replays() -> dict[str, Result]:
    return background.results()


@pytest.fixture(scope="session", params=["healthy_days.yml", "healthy_month.yml"])
def healthy(request, replays) -> Result:
    """The healthy cluster's life: its events in two days, and the month the issue asks for."""
    return replays[request.param]


@pytest.fixture(scope="session")
def study_10b(replays) -> Result:
    return replays["study_10b.yml"]


@pytest.fixture(scope="session")
def reboot_without_noout(replays) -> Result:
    return replays["reboot_without_noout.yml"]


@pytest.fixture(scope="session")
def resharding_rounds(replays) -> Result:
    return replays["resharding_rounds.yml"]


@pytest.fixture(scope="session")
def resharding_run(replays) -> Result:
    return replays["resharding.yml"]


@pytest.fixture(scope="session")
def scrub_storm_10b(replays) -> Result:
    return replays["scrub_storm_10b.yml"]


@pytest.fixture(scope="session")
def power_outage_10b(replays) -> Result:
    return replays["power_outage_10b_short.yml"]


@pytest.fixture(scope="session")
def study_1b(replays) -> Result:
    return replays["study_1b.yml"]
