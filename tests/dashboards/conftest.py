"""A real Prometheus scraping the session's sidecar while the study's conditions are made to
happen on the session's cluster (previews/scenario.py). Set CEPH_SCALE_PREVIEWS=DIR to also
render the PNG previews from that run into DIR."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def dashboard_run(ceph_cluster, scratch):
    """The run on a sidecar of its own, with the previews' sources and thresholds (a lowered
    rgw_bucket_objects_advised): the session's sidecar keeps the defaults the other tests judge by."""
    from demo.monitoring import wait_until
    from demo.sidecar import Sidecar
    from previews.scenario import SIDECAR_SOURCES, SIDECAR_THRESHOLDS, make_conditions, start_prometheus

    sidecar = Sidecar(ceph_cluster, scratch / "dashboards", sources=SIDECAR_SOURCES, thresholds=SIDECAR_THRESHOLDS)
    prom = None
    try:
        sidecar.start()
        prom = start_prometheus(scratch / "dashboards", sidecar.url)
        start = time.time()
        wait_until(prom.targets_up, 30, what="Prometheus to scrape the sidecar")
        timings, end = make_conditions(ceph_cluster, prom)
        yield {"prometheus": prom, "start": start, "end": end, "timings": timings}
    finally:
        if prom is not None:
            prom.stop()
        sidecar.stop()


@pytest.fixture(scope="module")
def preview_pngs(dashboard_run, scratch):
    """The PNG previews of that run: into $CEPH_SCALE_PREVIEWS when set (that is how the committed
    dashboards/previews/ are made), else into the session's scratch directory.
    Returns {png path: titles of the panels that showed no data}."""
    from previews.render import render_all

    out = Path(os.environ.get("CEPH_SCALE_PREVIEWS") or scratch / "previews")
    run = dashboard_run
    return render_all(run["prometheus"].url, out, run["start"], run["end"], {"__rate_interval": "30s"})
