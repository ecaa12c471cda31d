from __future__ import annotations

import json
import subprocess
import time

from ...core import inputs
from .base import Deadline, Source


class ReshardSource(Source):
    """The reshard queue, from `radosgw-admin reshard list`.

    Pacific's Admin Ops API has no reshard endpoint, so this needs a key that
    can read the zone's log pool; without one, disable the source and rely on
    the bucket-based signals (buckets over the shard limit are queued next).
    """

    name = field = "reshard"
    default_interval = 60.0
    default_timeout = 20.0

    def collect(self, deadline: Deadline):
        t = time.time()
        argv = [*self.ctx.radosgw_admin_argv, "reshard", "list", "--format", "json"]
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=deadline.left(), check=False)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"radosgw-admin reshard list timed out after {deadline.timeout:g}s") from None
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"radosgw-admin reshard list exited {proc.returncode}: {err[-1] if err else ''}")
        return inputs.reshard_part(json.loads(proc.stdout or b"[]"), t)
