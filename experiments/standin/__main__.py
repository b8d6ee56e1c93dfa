"""`python -m experiments.standin`: the stand-in model's server."""

import sys

from experiments.standin.server import main

if __name__ == "__main__":  # importing the module (a walk of the packages) starts nothing
    sys.exit(main())
