from __future__ import annotations

import time

from ceph_scale.core import inputs

from .base import Deadline, Source


class CapacitySource(Source):
    """`df detail` plus pool layouts from `osd dump`: cluster and pool fill."""

    name = field = "capacity"

    def collect(self, deadline: Deadline):
        t = time.time()
        df = self.ceph("df", deadline, detail="detail")
        dump = self.ceph("osd dump", deadline)
        return inputs.capacity_part(df, dump, t)
