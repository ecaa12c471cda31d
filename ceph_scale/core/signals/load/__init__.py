"""Load per HDD OSD against the measured baseline of 60 PUT / 90 GET ops/s [004, 000, 003].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
