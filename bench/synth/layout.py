"""The seeded layout every file is drawn from: which OSDs spill over and which are nearfull, their
fill and DB use, the pools and their PGs, the RGWs, the hosts."""

from __future__ import annotations

import math
import random
from typing import Any

from bench.synth.constants import (
    NEARFULL_SHARE,
    NOT_DEEP_SCRUBBED_SHARE,
    NOT_SCRUBBED_SHARE,
    NOW,
    OSDS_PER_HOST,
    POOL_GROUP,
    RGWS_PER_HOST,
    SPILLOVER_SHARE,
)


class Layout:
    def __init__(self, osds: int, pgs: int, pools: int, buckets: int, rgws: int, seed: int = 1) -> None:
        if osds < 6 or pgs < pools or pools < 1 or rgws < 1 or buckets < 0:
            raise ValueError("need at least 6 OSDs, one pool, one PG per pool, one RGW")
        self.n_osds, self.n_pgs, self.n_pools, self.n_buckets, self.n_rgws = osds, pgs, pools, buckets, rgws
        self.seed = seed
        self.now = NOW.timestamp()
        rng = random.Random(seed)
        self.hosts = max(1, math.ceil(osds / OSDS_PER_HOST))
        self.spilled = set(rng.sample(range(osds), round(osds * SPILLOVER_SHARE)))
        not_spilled = [i for i in range(osds) if i not in self.spilled]
        # The nearfull OSDs among the spilled ones: both findings at once, as at 10B.
        self.nearfull = set(rng.sample(sorted(self.spilled), round(osds * NEARFULL_SHARE)))
        self.fill = {}
        for i in range(osds):
            if i in self.nearfull:
                self.fill[i] = rng.uniform(0.855, 0.885)
            else:
                self.fill[i] = min(0.84, max(0.70, rng.gauss(0.775, 0.02)))
        self.db_used = {}
        self.slow_used = {}
        for i in range(osds):
            if i in self.spilled:  # L1..L4 (284 GB) on flash, L5 spilling
                self.db_used[i] = rng.randint(270, 300) * 10**9
                self.slow_used[i] = rng.randint(2, 90) * 10**9
            else:
                self.db_used[i] = rng.randint(150, 270) * 10**9
                self.slow_used[i] = 0
        del not_spilled
        self.pool_list = self._pools()
        self.rgw_list = [
            (f"rgw.ceph-node-{h + 1:02d}.rgw{k}", str(14250 + 17 * n))
            for n, (h, k) in enumerate((n // RGWS_PER_HOST, n % RGWS_PER_HOST) for n in range(rgws))
        ]
        self.rng = rng

    def _pools(self) -> list[dict[str, Any]]:
        """[{id, name, pg_num, ec, app}] in groups of seven per zone; PGs split as at 10B."""
        groups = math.ceil(self.n_pools / len(POOL_GROUP))
        out: list[dict[str, Any]] = []
        for g in range(groups):
            zone = "default" if g == 0 else f"zone{g}"
            for name, _, app in POOL_GROUP:
                if len(out) == self.n_pools:
                    break
                n = name.format(z=zone)
                if g and not name.startswith("{z}"):
                    n = f"{zone}{name}" if name.startswith(".") else f"{zone}.{name}"
                out.append({"id": len(out) + 1, "name": n, "ec": name.endswith("buckets.data"), "app": app})
        weights = [POOL_GROUP[i % len(POOL_GROUP)][1] for i in range(len(out))]
        total = sum(weights)
        left = self.n_pgs
        for p, w in zip(out, weights):
            p["pg_num"] = max(1, int(self.n_pgs * w / total))
            left -= p["pg_num"]
        # Rounding goes to the largest (data) pool, so the total is exact.
        biggest = max(out, key=lambda p: p["pg_num"])
        biggest["pg_num"] += left
        if biggest["pg_num"] < 1:
            raise ValueError("too few PGs for this many pools")
        return out

    def host_of(self, osd: int) -> str:
        return f"ceph-node-{osd // OSDS_PER_HOST + 1:02d}"

    def addr(self, osd: int, port: int) -> str:
        h = osd // OSDS_PER_HOST
        return f"10.0.{h}.{10 + h}:{port}"

    def _addrvec(self, osd: int, base: int) -> dict:
        nonce = 1000 + osd
        return {
            "addrvec": [
                {"addr": self.addr(osd, base), "nonce": nonce, "type": "v2"},
                {"addr": self.addr(osd, base + 1), "nonce": nonce, "type": "v1"},
            ]
        }

    def scrub_counts(self) -> tuple[int, int]:
        return round(self.n_pgs * NOT_SCRUBBED_SHARE), round(self.n_pgs * NOT_DEEP_SCRUBBED_SHARE)
