"""`python -m controller`: the `shoectl` command."""

import sys

from controller.cli.shoectl import main

sys.exit(main())
