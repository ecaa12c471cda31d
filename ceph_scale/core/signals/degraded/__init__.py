"""The throughput the study expects with OSDs down [004].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
