"""`python -m mtptui` runs the same command line as the `mtptui` script (e.g. from a venv without its bin/)."""

import sys

from mtptui.cli.main import main

sys.exit(main())
