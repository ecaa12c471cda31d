"""Tests of the degraded signal's folder (ceph_scale/core/signals/degraded/)."""
