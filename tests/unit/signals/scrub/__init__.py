"""Tests of the scrub signal's folder (ceph_scale/core/signals/scrub/)."""
