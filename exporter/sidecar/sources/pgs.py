from __future__ import annotations

import time

from ...core import inputs
from .base import Deadline, Source


class PgsSource(Source):
    """`pg dump pgs`: scrub stamps and states. The costliest call, so the slowest interval."""

    name = field = "pgs"
    default_interval = 60.0
    default_timeout = 30.0

    def collect(self, deadline: Deadline):
        t = time.time()
        return inputs.pg_part(self.ceph("pg dump", deadline, dumpcontents=["pgs"]), t)
