"""What watching every bucket costs, and how far behind the bucket poll is.

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
