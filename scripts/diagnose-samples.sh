#!/usr/bin/env bash
# Measure the three sample diagnoses the page "Diagnose your own code" renders, into
# results/<runner>/diagnose/NAME.json, and in the same sitting the guide's full runs of the
# examples they come from, into results/<runner>/diagnose/guide/: the page sets each diagnosis
# against a full run on the same machine (a verdict about XLA on a big matmul depends on the CPU).
# Run on a quiet machine; compare with the committed files before committing new ones.
#
#   bash scripts/diagnose-samples.sh [--runner cpu|gpu] [--out RESULTS_ROOT]
set -euo pipefail
cd "$(dirname "$0")/.."

runner=cpu
out=results
while [[ $# -gt 0 ]]; do
    case $1 in
        --runner) runner=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "diagnose-samples.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [[ $runner == cpu ]]; then
    export CUDA_VISIBLE_DEVICES=""  # the CPU runner's numbers, even on a machine with a GPU
fi
tfspeedlab=${TFSPEEDLAB:-.venv/bin/tfspeedlab}
inputs=examples/_diagnose_inputs.py

# Each sample in three fresh processes, pooled, as the guide's full runs have; and in three
# sittings, one before the full runs and two after, pooled too (tfspeedlab pool): the intervals
# then cover how far a fresh process moves, and how far the machine drifts over a quarter of an
# hour (with two sittings, a third still fell outside one of them).
# NAME  TARGET  INPUTS  BUDGET (s, all three processes): a 2048 × 2048 matmul needs longer for
# the same number of blocks.
diagnose_samples() {
    while read -r name target make budget; do
        "$tfspeedlab" diagnose "$target" --inputs "$inputs:$make" --budget "$budget" --processes 3 \
            --save "$1/$runner/diagnose/$name.json"
    done <<'SAMPLES'
small_ops examples/small_ops.py:small_ops small_ops_inputs 30
matmul examples/matmul.py:matmul matmul_inputs 60
tracing examples/tracing.py:scaled_sum scaled_sum_inputs 30
SAMPLES
}

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
diagnose_samples "$staging/first"
"$tfspeedlab" run small_ops matmul tracing --runner "$runner" --out "$staging/full"
diagnose_samples "$staging/second"
diagnose_samples "$staging/third"
"$tfspeedlab" pool "$staging/first" "$staging/second" --into "$staging/pooled"
"$tfspeedlab" pool "$staging/pooled" "$staging/third" --into "$out"
mkdir -p "$out/$runner/diagnose/guide"
for example in small_ops matmul tracing; do
    mv "$staging/full/$runner/$example.json" "$out/$runner/diagnose/guide/$example.json"
done
