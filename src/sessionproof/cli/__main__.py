"""`python -m sessionproof.cli`."""

from . import main

main()
