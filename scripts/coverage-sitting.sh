#!/usr/bin/env bash
# One sitting of re-measures of the headline examples, for "How to time TensorFlow fairly"'s table of
# how often a re-measured speed-up lands inside the committed 95% interval:
#
#   bash scripts/coverage-sitting.sh [--runner cpu]
#
# Runs small_ops and train_step in full, and the cells their pages lead with of the predict ladder
# (batch 1) and of the TF1 question (its small model), as full runs would, into
# results/<runner>/coverage/<UTC time>/. Run it on an otherwise idle machine, in a sitting of its
# own (hours after the committed run, or on another day): a sitting measured beside the committed
# one would say how well a run agrees with itself, not with a re-measure.
set -euo pipefail
cd "$(dirname "$0")/.."
runner=cpu
if [[ "${1:-}" == "--runner" ]]; then runner="$2"; fi
tfspeedlab=".venv/bin/tfspeedlab"
stamp="$(date -u +%Y-%m-%dT%H%M)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$tfspeedlab" run small_ops train_step --runner "$runner" --out "$scratch"
"$tfspeedlab" run predict_ladder --only batch=1 --runner "$runner" --out "$scratch"
"$tfspeedlab" run tf1_vs_tf2 --only model=small --runner "$runner" --out "$scratch"
destination="results/$runner/coverage/$stamp"
mkdir -p "$destination"
for file in "$scratch/$runner"/*.json; do
    [[ "$file" == *.failed.json ]] || cp "$file" "$destination/"
done
echo "re-measured into $destination" >&2
