"""ceph-mgr module `scale` (ceph-scale-signals): `ceph mgr module enable scale`."""

from .module import Module, StandbyModule

__all__ = ["Module", "StandbyModule"]
