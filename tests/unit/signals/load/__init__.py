"""Tests of the load signal's folder (ceph_scale/core/signals/load/)."""
