#!/usr/bin/env bash
# Does `tfspeedlab compare` tell noise from a real change? Runs small_ops twice,
# back to back, at full size, then once more with its graph case slowed by a
# deliberate 100 µs sleep per call, and compares with --fail-on-slower: the two plain runs
# should read "the same" or "inconclusive here" for every case (exit 0), the slowed run
# "slower" for the graph case only (exit 1). A benchmark, not a test: it takes minutes, and its answer is for people.
#
#   bash scripts/compare-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/slowed"
# The same example with one mode slowed: a regression compare must find.
"$python" - "$scratch/slowed/small_ops.py" <<'PY'
import sys
source = open("examples/small_ops.py").read()
slowed = source.replace('"graph": tf.function(small_ops),', '"graph": slowed(tf.function(small_ops)),')
assert slowed != source, "examples/small_ops.py no longer has the line this check slows"
slowed = slowed.replace("def workload(", '''def slowed(fn):
    import time

    def call(x):
        time.sleep(100e-6)
        return fn(x)
    return call


def workload(''', 1)
open(sys.argv[1], "w").write(slowed)
PY
for run in first second; do
    echo "== $run run of small_ops" >&2
    "$python" -m tfspeedlab run small_ops --runner cpu --out "$scratch/$run"
done
echo "== small_ops with its graph case slowed by 100 µs per call" >&2
"$python" -m tfspeedlab --examples "$scratch/slowed" run small_ops --runner cpu --out "$scratch/slowed-run"
echo
echo "Two runs of the same code (expect: no case faster or slower, and exit 0)"
code=0
"$python" -m tfspeedlab compare "$scratch/first/cpu/small_ops.json" "$scratch/second/cpu/small_ops.json" \
    --fail-on-slower || code=$?
echo "exit $code"
echo
echo "The second run against the slowed copy (expect: graph slower, the rest not, and exit 1)"
code=0
"$python" -m tfspeedlab compare "$scratch/second/cpu/small_ops.json" "$scratch/slowed-run/cpu/small_ops.json" \
    --fail-on-slower || code=$?
echo "exit $code"
