"""The page budget of the 10B run's deep-scrub storm [001, 003] (scrub_storm_10b.yml): the study's
cluster at about 500 M objects, 400 PGs deep scrubbing at once for 30 minutes (about 30 as usual)
while the cluster serves 55 % of the PUTs and GETs its clients ask.

Budget: one plunge, to the RGW team, and one deep-scrub storm, to the storage team (the team that
owns the cause hears of it), each within NOTIFIED_WITHIN of the storm's start and over within
OVER_WITHIN of its end; nothing pages; nothing else starts, and what held before holds.
"""

from __future__ import annotations

from replay.run import Result

NOTIFIED_WITHIN = 20 * 60  # a pg dump every 10 minutes, the storm alert's `for: 10m`
OVER_WITHIN = 15 * 60  # the plunge's two refreshes back at the level and `keep_firing_for: 5m`


def storm(r: Result) -> tuple[float, float]:
    ((start, end),) = [(s, e) for _, s, e, what in r.incidents if what.startswith("deep-scrub storm")]
    assert end is not None
    return start, end


def test_the_storm_is_one_plunge_to_the_rgw_team_and_one_storm_to_the_storage_team(scrub_storm_10b):
    start, end = storm(scrub_storm_10b)
    during = [n for n in scrub_storm_10b.notifications if start <= n.start <= end]
    notes = [
        (n.alertname, n.receiver, n.start <= start + NOTIFIED_WITHIN, n.end is not None and n.end <= end + OVER_WITHIN)
        for n in during
    ]
    assert sorted(notes) == [
        ("CephScaleDeepScrubStorm", "ceph-scale-storage", True, True),
        ("CephScaleS3ThroughputPlunge", "ceph-scale-rgw", True, True),
    ]


def test_the_storm_pages_nobody_and_nothing_resolves_or_starts_after_it(scrub_storm_10b):
    """What held before the storm (the study's load at the HDD baseline: a warning to the RGW
    team from the first half hour) holds through it."""
    _, end = storm(scrub_storm_10b)
    assert scrub_storm_10b.pages() == []
    after = [n for n in scrub_storm_10b.notifications if n.start > end]
    assert after == []
    before = [n for n in scrub_storm_10b.notifications if n.start < storm(scrub_storm_10b)[0]]
    assert before and all(n.end is None for n in before)
