from __future__ import annotations

import time

from ceph_scale.core import inputs

from .base import Deadline, Source


class OsdMapSource(Source):
    """`osd df tree`, `osd dump`, `osd metadata`: fill per OSD, state, device classes and CRUSH
    roots, DB sizes."""

    name = field = "osd_map"

    def collect(self, deadline: Deadline):
        t = time.time()
        df = self.ceph("osd df", deadline, output_method="tree")
        dump = self.ceph("osd dump", deadline)
        metadata = self.ceph("osd metadata", deadline)
        return inputs.osd_map_part(df, dump, metadata, t)
