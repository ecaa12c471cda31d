import sys

from .sidecar.main import main

sys.exit(main())
