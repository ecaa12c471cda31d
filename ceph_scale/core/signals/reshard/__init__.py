"""RGW dynamic bucket resharding: reshards counted once, buckets near their shard limit [000, 004].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
