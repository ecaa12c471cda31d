"""The study's 100,000 buckets (tests/unit/signals/tenants/test_tenants.py's cluster) polled four times
20 minutes apart while four tenants with bucket quotas grow or hold, derived by the real
derivation: what the usage signal's check and status section judge."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.signals.tenants.result import UsageSummary
from ceph_scale.core.snapshot import BucketsPart, Snapshot
from tests.unit.bucket_reader import MemoryBuckets
from tests.unit.signals.tenants.test_tenants import EVERYTHING, skewed_cluster

HOUR, DAY = 3600.0, 86400.0
GROWTH = 10**9 / HOUR  # bytes per second of each growing tenant, into its first bucket
# A history of an hour is enough to fit, and long enough to extrapolate a month from.
TH = Thresholds.from_mapping({"forecast_min_span_seconds": 3600, "plan_max_extrapolation": 1000})
STEP = HOUR / 3
POLLS = 4  # 20 minutes apart: the fit's four points over an hour at the last
# The four largest tenants, largest first: (the room its bucket quotas leave at the last poll in
# seconds at GROWTH, whether it grows). +Inf room: quotas far away, not growing.
ROOMS = (3 * DAY, 20 * DAY, 12 * HOUR, 40 * DAY)
GROWS = (True, True, True, False)


@dataclass(frozen=True)
class Study:
    cluster: MemoryBuckets
    owners: tuple[str, ...]  # the four tenants with quotas, largest first
    state: DerivationState

    @property
    def usage(self) -> UsageSummary:
        usage = self.state.results.get(UsageSummary)
        assert usage is not None
        return usage


def size(cluster: MemoryBuckets, key: str) -> int:
    usage = cluster.buckets[key]["usage"]
    return usage["rgw.main"]["size_actual"] if usage else 0


def grown_study() -> Study:
    cluster, clock = skewed_cluster(100_000, 2_000)
    by_owner: dict[str, list[str]] = {}
    for key, b in cluster.buckets.items():
        by_owner.setdefault(b["owner"], []).append(key)
    owned = {o: sum(size(cluster, k) for k in keys) for o, keys in by_owner.items()}
    owners = tuple(sorted(owned, key=lambda o: -owned[o])[: len(ROOMS)])
    span = (POLLS - 1) * STEP
    for owner, room, grows in zip(owners, ROOMS, GROWS):
        keys = sorted(by_owner[owner])
        for key in keys:  # each bucket full to its last size, the first with the tenant's room
            last = size(cluster, key) + (int(GROWTH * span) if grows and key == keys[0] else 0)
            cluster.set_quota(key, max_size=last + (int(room * GROWTH) if key == keys[0] else 0))
    # The first poll reads every bucket (quotas and owners through the real parser); later ones
    # re-read only the growing buckets, as a budgeted poll would, so the others' figures age.
    part = BucketPoll().poll(clock(), cluster, EVERYTHING, frozenset(), lambda: 60.0, cluster.exists)
    assert len(part.buckets) == 100_000 and not part.unread
    state = DerivationState(TH)
    derive(Snapshot(taken_at=clock(), buckets=part), state, TH)
    growing = {sorted(by_owner[o])[0] for o, grows in zip(owners, GROWS) if grows}
    for _ in range(POLLS - 1):
        clock.t += STEP
        t = clock()
        buckets = tuple(
            dataclasses.replace(b, size_bytes=b.size_bytes + int(GROWTH * STEP), num_objects=b.num_objects + 1,
                                stats_at=t) if b.key in growing else b
            for b in part.buckets
        )  # fmt: skip
        part = BucketsPart(t, buckets)
        derive(Snapshot(taken_at=t, buckets=part), state, TH)
    return Study(cluster, owners, state)
