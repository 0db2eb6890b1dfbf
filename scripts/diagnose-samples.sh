#!/usr/bin/env bash
# Measure the three sample diagnoses the page "Diagnose your own code" renders, into
# results/<runner>/diagnose/NAME.json. Run on a quiet machine; compare with the committed files
# (the verdicts must not change) before committing new ones.
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

# NAME  TARGET  INPUTS  BUDGET (s): a 2048 × 2048 matmul needs longer for the same number of blocks.
while read -r name target make budget; do
    "$tfspeedlab" diagnose "$target" --inputs "$inputs:$make" --budget "$budget" \
        --save "$out/$runner/diagnose/$name.json"
done <<'SAMPLES'
small_ops examples/small_ops.py:small_ops small_ops_inputs 20
matmul examples/matmul.py:matmul matmul_inputs 40
tracing examples/tracing.py:scaled_sum scaled_sum_inputs 20
SAMPLES
