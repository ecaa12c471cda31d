"""S3 latency per op, from the RGWs' counters [004].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
