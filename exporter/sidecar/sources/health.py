from __future__ import annotations

import time

from ceph_scale.core import inputs

from .base import Deadline, Source


class HealthSource(Source):
    """`health detail`: Ceph's own checks (BLUEFS_SPILLOVER, PG_NOT_SCRUBBED, ...)."""

    name = field = "health"

    def collect(self, deadline: Deadline):
        t = time.time()
        return inputs.health_part(self.ceph("health", deadline, detail="detail"), t)
