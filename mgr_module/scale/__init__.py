"""ceph-mgr module `scale` (ceph-scale-signals): `ceph mgr module enable scale`.

The module imports the pure core and the I/O package by their own names (`ceph_scale.core`,
`ceph_scale.io`): install.sh copies them into this directory as ceph_scale/, and this directory
goes first on sys.path before anything imports them. The manager runs each module in a
sub-interpreter of its own, so the entry is this module's alone. In a checkout (the tests) there
is no copy here: the repository's root provides them, and the path is left as it is.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.isdir(os.path.join(_HERE, "ceph_scale")) and _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from .module import Module, StandbyModule  # noqa: E402  (after the path the core is found on)

__all__ = ["Module", "StandbyModule"]
