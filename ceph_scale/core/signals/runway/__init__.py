"""Runway and sizing: how long until each limit, and what a plan needs [004, 000, 001].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
