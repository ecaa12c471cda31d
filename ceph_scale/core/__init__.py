"""The pure core: the snapshot, one parser module per source, the signals, the advisor, the
exposition. No I/O: tests/unit/test_layout.py fails on a core file that imports a socket, a
thread, a subprocess, urllib or rados.
"""
