"""Page by page, how the article text of two built sites differs: the check a refactor of the site
layer must pass (identical text, or only the differences it means to make).

    python scripts/site-text-diff.py BEFORE_SITE AFTER_SITE

Prints a unified diff of each page's article text (tags stripped, one block per line) and a
summary; exits 1 when any page differs or is only in one of the two.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from tfspeedlab.site.built_pages import article_lines, pages as built_pages

def main(before: Path, after: Path) -> int:
    pages = sorted(set(built_pages(before)) | set(built_pages(after)))
    differing = 0
    for page in pages:
        old, new = before / page, after / page
        if not old.exists() or not new.exists():
            print(f"only in {'after' if not old.exists() else 'before'}: {page}")
            differing += 1
            continue
        diff = list(difflib.unified_diff(article_lines(old), article_lines(new), f"before/{page}", f"after/{page}",
                                         lineterm="", n=0))
        if diff:
            differing += 1
            print("\n".join(diff))
    print(f"\n{differing} of {len(pages)} pages differ")
    return 1 if differing else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
