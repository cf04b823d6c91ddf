"""The binary's entry point (`./scripts/build-binary`): the `telephony` command, as the console script runs it."""

import sys

from telephony.cli import main

if __name__ == "__main__":
    sys.exit(main())
