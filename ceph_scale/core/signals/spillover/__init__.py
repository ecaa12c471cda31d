"""BlueFS/RocksDB spillover: the DB device's whole levels, and what spilled to the slow device [004, 000].

The study finding's home: its derivation and state (derive.py), and beside it what judges,
shows and alerts on it."""
