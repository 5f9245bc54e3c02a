"""``python -m sgr_kit.demo [FOLDER]``: print the demo's calibration (see :mod:`sgr_kit.demo.check`)."""

from sgr_kit.demo.check import main

raise SystemExit(main())
