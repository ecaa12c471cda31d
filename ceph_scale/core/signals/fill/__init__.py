"""Distance to the 80 % fill line: cluster, pools and the fullest OSDs [001, 000, 003].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
