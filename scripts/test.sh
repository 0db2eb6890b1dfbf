#!/usr/bin/env bash
# The full test suite on a fresh machine: what it needs, then pytest.
#
#   bash scripts/test.sh [PYTEST ARGS...]
#
# Installs Debian's Chromium for the browser test when it is missing and this
# runs as root (elsewhere it says how), creates .venv, installs the project
# with its test extras, and runs pytest (unit tests, every example in quick
# mode, the docs' code blocks, a strict site build, and the browser test).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "test.sh: the browser test needs Chromium; install it (sudo apt-get install chromium)." >&2
    fi
fi

export NO_MKDOCS_2_WARNING=1
python3 -m venv .venv
.venv/bin/pip install -q -e ".[test]"
exec .venv/bin/python -m pytest "$@"
