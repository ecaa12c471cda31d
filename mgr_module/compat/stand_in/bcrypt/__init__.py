"""Stand-in for `bcrypt` in a manager that loads modules in sub-interpreters.

Ceph's `mgr_util` imports `bcrypt` at the top, so every Python manager module imports it.
Where the distribution's bcrypt is a PyO3 build (Debian 13, Ubuntu 24.04), that import fails
in a sub-interpreter ("PyO3 modules do not yet support subinterpreters") and the Reef manager
refuses every module, the stock `prometheus` module and `scale` included.

`mgr_module/install.sh` puts this package in the manager's module directory, first on its
path, only when the system bcrypt fails that way (`mgr_module/compat/needs_bcrypt_stand_in.py`
tells). Only password hashing (the dashboard's local users) needs bcrypt, and it could not run
there anyway: its calls raise a clear error instead.
"""

__version__ = "0+ceph-scale-subinterpreter-stand-in"

_WHY = (
    "bcrypt is unavailable in this ceph-mgr: the distribution's bcrypt is a PyO3 build, which cannot load in "
    "the manager's sub-interpreters; ceph-scale-signals installed this stand-in so that modules load"
)


def gensalt(*args, **kwargs):
    raise RuntimeError(_WHY)


def hashpw(*args, **kwargs):
    raise RuntimeError(_WHY)


def checkpw(*args, **kwargs):
    raise RuntimeError(_WHY)


def kdf(*args, **kwargs):
    raise RuntimeError(_WHY)
