"""Scale benchmark: synthetic cluster state at study scale and the measurements on it (docs/benchmark.md)."""
