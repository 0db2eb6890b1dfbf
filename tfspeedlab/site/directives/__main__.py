"""``python -m tfspeedlab.site.directives [--write FILE]``: the list of every directive, from the registry.

Printed, or written into FILE (``CONTRIBUTING.md``) between its ``<!-- directives -->`` markers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tfspeedlab.render.registry import with_catalogue
from tfspeedlab.site.directives import catalogue

if len(sys.argv) == 3 and sys.argv[1] == "--write":
    target = Path(sys.argv[2])
    target.write_text(with_catalogue(target.read_text(encoding="utf-8")), encoding="utf-8")
elif len(sys.argv) == 1:
    sys.stdout.write(catalogue())
else:
    sys.exit(__doc__)
