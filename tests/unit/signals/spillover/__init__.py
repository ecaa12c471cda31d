"""Tests of the spillover signal's folder (ceph_scale/core/signals/spillover/)."""
