"""Reshards the sidecar never saw happen are still counted, exactly where the release allows.

A bucket created and resharded twice while the exporter is down is first seen already
resharded. From Reef on its index layout generation says how many times (2); on Pacific
only that its instance id differs from its marker (1: Pacific removes the old instances).
Either way the count survives a restart without doubling.
"""

from __future__ import annotations

import time

import pytest

from cluster import s3load
from demo.monitoring import wait_until
from tests.conftest import ON_EVERY_RELEASE

pytestmark = [pytest.mark.cluster, ON_EVERY_RELEASE]


def reshard(cluster, bucket: str, shards: int) -> dict:
    # Fewer shards than now is refused unless confirmed, on every release.
    confirm = ["--yes-i-really-mean-it"] if shards < cluster.bucket_stats(bucket)["num_shards"] else []
    cluster.radosgw_admin(
        "bucket", "reshard", "--bucket", bucket, "--num-shards", str(shards), *confirm, fmt_json=False
    )  # fmt: skip
    return cluster.bucket_stats(bucket)


def knowable_reshards(cluster, reshards: int) -> int:
    """What the release lets a poll after the fact know: each generation, or that there was one."""
    return reshards if cluster.release.reshard_keeps_id else 1


def index_layouts(cluster) -> dict[str, tuple[str, int]]:
    """Every bucket's instance id and shard count, as the cluster has them now."""
    return {s["bucket"]: (s["id"], int(s["num_shards"])) for s in cluster.radosgw_admin("bucket", "stats")}


class ReshardCount:
    """The sidecar's cluster-wide reshard count against what this test made plus what the cluster
    itself did meanwhile: the RGW's reshard thread may still work through another test's queue
    (a bucket whose instance or shard count changed counts once)."""

    def __init__(self, cluster, sidecar, ours: str) -> None:
        self.cluster, self.sidecar, self.ours = cluster, sidecar, ours
        # A whole poll begun after a look at the cluster (the second to end after it): whatever
        # resharded before the look is then in `base`. A reshard between the look and the read of
        # `base` would be in both `base` and `others`, so the cluster is looked at again after the
        # read, until the two looks agree.
        for _ in range(5):
            looked = index_layouts(cluster)
            for _ in range(2):
                since = time.time()
                wait_until(lambda at=since: self.polled_since(at), 60, what="a bucket poll after the look")
            self.base = self.value() or 0
            self.layouts = index_layouts(cluster)
            if self.layouts == looked:
                return
        raise AssertionError(f"the cluster kept resharding buckets while the test looked: {self.layouts}")

    def polled_since(self, since: float) -> bool:
        last = self.sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="buckets")
        return last is not None and last > since

    def value(self) -> float | None:
        return self.sidecar.value("ceph_scale_rgw_reshard_events_total")

    def others(self) -> list[str]:
        now = index_layouts(self.cluster)
        return [b for b, v in now.items() if b != self.ours and b in self.layouts and self.layouts[b] != v]

    def expect(self, ours: int, timeout: float = 60) -> None:
        """Until the count is `base + ours +` one per other bucket the cluster resharded."""
        seen: dict = {}

        def matches() -> bool:
            seen["others"], seen["value"] = self.others(), self.value()
            return seen["value"] == self.base + ours + len(seen["others"])

        try:
            wait_until(matches, timeout, what=f"{ours} reshard(s) of ours counted")
        except TimeoutError as e:
            raise AssertionError(
                f"{e}: the count is {seen.get('value')} from {self.base}; other buckets resharded meanwhile: "
                f"{seen.get('others')}"
            ) from None


def test_a_bucket_created_and_resharded_while_the_exporter_was_down_is_counted(ceph_cluster, sidecar):
    wait_until(lambda: sidecar.value("ceph_scale_rgw_buckets") is not None, 60, what="a bucket poll")
    count = ReshardCount(ceph_cluster, sidecar, "unseen-reshards")
    resharded_before = sidecar.value("ceph_scale_rgw_buckets_resharded")
    sidecar.stop()
    try:
        s3load.client(ceph_cluster.rgw_endpoint, *ceph_cluster.user_keys).create_bucket(Bucket="unseen-reshards")
        first = ceph_cluster.bucket_stats("unseen-reshards")
        reshard(ceph_cluster, "unseen-reshards", 5)
        last = reshard(ceph_cluster, "unseen-reshards", 7)
    finally:
        sidecar.start()
    assert last["num_shards"] == 7 and last["marker"] == first["marker"]
    if ceph_cluster.release.reshard_keeps_id:
        assert ceph_cluster.index_generation("unseen-reshards") == 2
    expected = knowable_reshards(ceph_cluster, 2)
    count.expect(expected)
    # The bucket's own stats (read on the bucket poll's schedule, a new bucket first) say it resharded.
    wait_until(
        lambda: sidecar.value("ceph_scale_rgw_buckets_resharded") == resharded_before + 1, 90,
        what="the bucket counted as resharded",
    )  # fmt: skip
    assert sidecar.value("ceph_scale_rgw_index_generation_readable") == 1

    # Seen, then resharded again between two polls, and the exporter restarted: once more each.
    reshard(ceph_cluster, "unseen-reshards", 11)
    sidecar.stop()
    sidecar.start()
    expected += 1
    count.expect(expected)
    wait_until(lambda: sidecar.value("ceph_scale_source_success", source="buckets") == 1, 30, what="a bucket poll")
    count.expect(expected, timeout=5)

    # A reshard to fewer shards (an operator's, or Tentacle's dynamic reduction) is a reshard:
    # counted once, on every release. Made after a bucket poll of the restarted exporter has
    # ended (seen once on Pacific: a reshard racing the first polls after a restart was lost).
    polls = sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="buckets")
    wait_until(
        lambda: sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="buckets") > polls,
        30,
        what="a bucket poll after the restart",
    )
    down = reshard(ceph_cluster, "unseen-reshards", 3)
    assert down["num_shards"] == 3
    expected += 1
    count.expect(expected)
    polls = sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="buckets")
    wait_until(
        lambda: sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="buckets") > polls,
        30,
        what="one more bucket poll",
    )
    count.expect(expected, timeout=5)
