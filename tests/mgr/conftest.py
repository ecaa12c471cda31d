"""Make the ceph-mgr module package `scale` importable as the manager imports it.

The manager puts its module directory on sys.path and imports `scale`; here that is
mgr_module/, with a fake `mgr_module` (Ceph's module API) registered first.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.mgr import fake_mgr

MODULE_DIR = Path(__file__).resolve().parents[2] / "mgr_module"
if str(MODULE_DIR) not in sys.path:
    sys.path.insert(0, str(MODULE_DIR))
fake_mgr.install()
