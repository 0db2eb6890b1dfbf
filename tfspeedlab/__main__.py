import sys

from tfspeedlab.cli import main

sys.exit(main())
