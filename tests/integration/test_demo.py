"""The README's demo command, run on the session's cluster for a short while."""

from __future__ import annotations

import pytest

from demo.run import run_demo

pytestmark = pytest.mark.cluster


def test_demo_shows_live_signals_and_cleans_up(ceph_cluster):
    lines: list[str] = []
    result = run_demo(cluster=ceph_cluster, duration=25, interval=10, out=lines.append, hold_scrubs=False)
    text = "\n".join(lines)
    assert "prometheus    http://127.0.0.1:" in text and "alertmanager  http://127.0.0.1:" in text
    assert "spillover   1 OSD(s) spilling: osd.0" in result["summary"]
    assert "sources     all ok" in result["summary"]
    assert "PUT " in result["summary"]
    # Everything the demo started is gone: its exporter and Prometheus no longer answer.
    import urllib.error
    import urllib.request

    for url in (result["exporter"], result["prometheus"] + "/-/ready"):
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(url, timeout=2)
