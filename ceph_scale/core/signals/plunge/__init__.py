"""S3 throughput plunges and their likely cause [000, 001, 004].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
