"""python -m bench.synth: see bench/synth/cli.py."""

from bench.synth.cli import main

raise SystemExit(main())
