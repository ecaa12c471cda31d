from __future__ import annotations

import time

from ...core import inputs
from .base import Deadline, Source


class BucketsSource(Source):
    """Every bucket's stats in one Admin Ops request (`GET /admin/bucket?stats=true`)."""

    name = field = "buckets"
    default_interval = 120.0
    default_timeout = 60.0

    def collect(self, deadline: Deadline):
        if self.ctx.rgw is None:
            raise RuntimeError("no RGW admin endpoint configured (--rgw-endpoint and credentials)")
        t = time.time()
        return inputs.buckets_part(self.ctx.rgw.bucket_stats(deadline.left()), t)
