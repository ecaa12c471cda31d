from __future__ import annotations

import time

from ceph_scale.core import inputs

from .. import fast_json
from .base import Deadline, Source


class PgsSource(Source):
    """`pg dump pgs`: scrub stamps and states. The costliest call, so the slowest interval."""

    name = field = "pgs"

    def collect(self, deadline: Deadline):
        t = time.time()
        # ~50 MB of JSON at 21,760 PGs: decoded a chunk at a time, never whole.
        raw = self.ctx.ceph.command_raw("pg dump", deadline.left(), dumpcontents=["pgs"])
        return inputs.pg_part_from_json(raw, t, self.ctx.ceph.decoder("pg dump"), fast_json.PG_CHUNKS)
