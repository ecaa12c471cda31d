from __future__ import annotations

import time

from ...core import inputs
from ...core.index_generation import GenerationProber
from .base import Deadline, Source

PROBE_TIMEOUT = 2.0  # a stat answers in milliseconds; no answer means no cap, or PGs down


class BucketsSource(Source):
    """Every bucket's stats in one Admin Ops request (`GET /admin/bucket?stats=true`), and the
    index generation (reshards, Reef+) of the buckets that changed, from the index pool."""

    name = field = "buckets"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.prober = GenerationProber()

    def collect(self, deadline: Deadline):
        if self.ctx.rgw is None:
            raise RuntimeError("no RGW admin endpoint configured (--rgw-endpoint and credentials)")
        t = time.time()
        # ~95 MB of JSON at 100,000 buckets: decoded a chunk at a time, never whole.
        raw = self.ctx.rgw.bucket_stats_raw(deadline.left())
        part = inputs.buckets_part_from_json(raw, t, self.ctx.rgw.decode_bucket_stats)

        def exists(oid: str) -> bool:
            # Bounded per read, and together by half of what the source has left.
            wait = min(PROBE_TIMEOUT, deadline.left() / 2)
            return self.ctx.ceph.object_exists(self.ctx.rgw_index_pool, oid, wait)

        return self.prober.attach(part, exists)
