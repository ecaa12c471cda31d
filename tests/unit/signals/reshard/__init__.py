"""Tests of the reshard signal's folder (ceph_scale/core/signals/reshard/)."""
