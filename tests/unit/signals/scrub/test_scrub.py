"""The scrub signal (core/signals/scrub/derive.py): Ceph's overdue rule and the completions counted."""

from __future__ import annotations

import math

import pytest

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import ClusterSettings, PgPart, PgScrubState, Snapshot
from tests.unit.signals.derived import samples


def test_scrub_overdue_uses_cephs_rule_and_counts_completions():
    th = Thresholds()
    state = DerivationState(th)
    settings = ClusterSettings(
        collected_at=0,
        scrub_max_interval_seconds=100,
        deep_scrub_interval_seconds=200,
        warn_pg_not_scrubbed_ratio=0.5,
        warn_pg_not_deep_scrubbed_ratio=0.5,
    )
    now = 10_000.0

    def pgs(t, stamps):
        return PgPart(
            collected_at=t,
            pgs=tuple(PgScrubState(f"1.{i}", 1, "active+clean", t - s, t - d) for i, (s, d) in enumerate(stamps)),
        )

    # overdue after 150 s (scrub) and 300 s (deep): PG 1 is overdue for both, PG 0 for neither.
    first = derive(Snapshot(taken_at=now, pgs=pgs(now, [(10, 10), (151, 301)]), settings=settings), state, th)
    assert samples(first, "ceph_scale_pg_scrub_overdue")[(("kind", "scrub"),)] == 1
    assert samples(first, "ceph_scale_pg_scrub_overdue")[(("kind", "deep_scrub"),)] == 1
    assert samples(first, "ceph_scale_pg_scrub_oldest_age_seconds")[(("kind", "deep_scrub"),)] == 301
    # Nothing completes: the backlog never clears.
    later = now + 60
    frozen = PgPart(collected_at=later, pgs=pgs(now, [(10, 10), (151, 301)]).pgs)
    second = derive(Snapshot(taken_at=later, pgs=frozen, settings=settings), state, th)
    assert math.isinf(samples(second, "ceph_scale_pg_scrub_backlog_clear_seconds")[(("kind", "scrub"),)])
    # PG 0 scrubs: one completion, and the backlog clears at that rate.
    done = PgPart(
        collected_at=later + 60,
        pgs=(PgScrubState("1.0", 1, "active+clean", later + 59, now - 10), frozen.pgs[1]),
    )
    third = derive(Snapshot(taken_at=later + 60, pgs=done, settings=settings), state, th)
    assert samples(third, "ceph_scale_pg_scrubs_completed_total") is None  # counters keep their base name
    assert samples(third, "ceph_scale_pg_scrubs_completed")[(("kind", "scrub"),)] == 1
    assert samples(third, "ceph_scale_pg_scrub_backlog_clear_seconds")[(("kind", "scrub"),)] == pytest.approx(120.0)
