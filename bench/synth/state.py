"""The synthetic study state: one class with every file's generator, drawn from one seeded layout."""

from __future__ import annotations

from pathlib import Path

from bench.synth.buckets import Buckets
from bench.synth.counters import Counters
from bench.synth.health import Health
from bench.synth.osds import Osds
from bench.synth.pgs import Pgs
from bench.synth.pools import Pools
from bench.synth.writer import write_state


class Synth(Osds, Pools, Pgs, Health, Counters, Buckets):
    """Synth(osds, pgs, pools, buckets, rgws, seed): the same arguments give the same bytes."""

    def write(self, out: Path) -> dict:
        """Writes every file into `out`; returns the manifest (bench/synth/writer.py)."""
        return write_state(self, out)
