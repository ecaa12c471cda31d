"""Scrub backlog: PGs not (deep-)scrubbed in time, and scrubs completing [004, 001, 003].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
