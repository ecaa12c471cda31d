"""The replays of the test command, run once per session, two at a time (one per core)."""

from __future__ import annotations

import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from replay.run import REPO, Result, replay

SCENARIOS = REPO / "replay" / "scenarios"
# The longest first: two at a time, the short ones fill in behind them.
REPLAYED = (
    "healthy_days.yml",
    "study_10b.yml",
    "study_1b_end.yml",
    "power_outage_10b_short.yml",
    "scrub_storm_10b.yml",
    "resharding_rounds.yml",
    "reboot_without_noout.yml",
)


def replay_in_temp(name: str) -> Result:
    with tempfile.TemporaryDirectory(prefix="replay-") as d:
        return replay(SCENARIOS / name, Path(d))


@pytest.fixture(scope="session")
def replays() -> dict[str, Result]:
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = dict(zip(REPLAYED, pool.map(replay_in_temp, REPLAYED)))
    return results


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
def scrub_storm_10b(replays) -> Result:
    return replays["scrub_storm_10b.yml"]


@pytest.fixture(scope="session")
def power_outage_10b(replays) -> Result:
    return replays["power_outage_10b_short.yml"]


@pytest.fixture(scope="session")
def study_1b(replays) -> Result:
    return replays["study_1b_end.yml"]
