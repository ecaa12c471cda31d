"""Session fixtures: one real Ceph cluster for the whole test session.

Starting a cluster costs about a minute; every real-cluster test shares this
one and the scenarios are ordered so that each condition is made once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(scope="session")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("ceph-scale")


@pytest.fixture(scope="session")
def ceph_cluster(tmp_path_factory):
    from cluster.testcluster import TestCluster

    base = tmp_path_factory.mktemp("cluster")
    cluster = TestCluster(
        base_dir=str(base),
        osds=3,
        db_sizes=("256M", "1G", "1G"),
        standby_mgr=True,
        rgw=True,
        extra_mgr_modules={"scale": str(REPO / "mgr_module" / "scale")},
    )
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    os.environ["CEPH_CONF"] = str(cluster.conf_path)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def sidecar(ceph_cluster, scratch):
    from demo.sidecar import Sidecar

    exporter = Sidecar(ceph_cluster, scratch).start()
    yield exporter
    exporter.stop()
