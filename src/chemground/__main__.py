import sys

from chemground.cli import main

sys.exit(main())
