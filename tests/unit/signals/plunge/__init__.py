"""Tests of the plunge signal's folder (ceph_scale/core/signals/plunge/)."""
