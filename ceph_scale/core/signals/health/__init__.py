"""Ceph's own health checks, as series.

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
