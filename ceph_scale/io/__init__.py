"""What the core leaves to its callers: the I/O (threads, sockets, subprocesses, HTTP, librados)."""
