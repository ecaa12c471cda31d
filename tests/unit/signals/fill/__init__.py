"""Tests of the fill signal's folder (ceph_scale/core/signals/fill/)."""
