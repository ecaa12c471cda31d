"""The replays of the test command, run once per session, two at a time (one per core)."""

from __future__ import annotations

import pytest

from replay.docs import replay_all
from replay.run import Result


@pytest.fixture(scope="session")
def replays() -> dict[str, Result]:
    return replay_all()


@pytest.fixture(scope="session")
def healthy(replays) -> Result:
    return replays["healthy_days.yml"]


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
