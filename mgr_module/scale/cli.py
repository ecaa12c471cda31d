"""The `ceph scale ...` command decorator on every manager release.

Up to Squid, `mgr_module.CLIReadCommand` registers a handler in one registry shared by all
modules. Tentacle removed it: each module makes its own registry with
`CLICommandBase.make_registry_subtype(...)` and names it as the class's `CLICommand`, as the
stock `prometheus/cli.py` does. `read_command` and `command_registry` give the module one
spelling for both.
"""

from typing import Any, Callable

try:
    from mgr_module import CLIReadCommand as _shared_read_command
except ImportError:  # Tentacle and later
    _shared_read_command = None

if _shared_read_command is None:
    from mgr_module import CLICommandBase

    command_registry: Any = CLICommandBase.make_registry_subtype("ScaleCLICommand")

    def read_command(prefix: str) -> Callable:
        return command_registry.Read(prefix)

else:
    command_registry = None

    def read_command(prefix: str) -> Callable:
        return _shared_read_command(prefix)
