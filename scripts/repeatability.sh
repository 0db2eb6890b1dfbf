#!/usr/bin/env bash
# Do the speed-ups reproduce? Runs the chosen examples twice, back to back, at
# full size, and prints every speed-up their pages show from both runs, the
# difference, and whether the committed speed-up lies in each run's interval.
# A benchmark, not a test: it takes minutes and its answer is for people.
#
#   bash scripts/repeatability.sh [EXAMPLE ...]     (default: small_ops train_step)
set -euo pipefail
cd "$(dirname "$0")/.."
examples=("$@")
[[ ${#examples[@]} -gt 0 ]] || examples=(small_ops train_step)
python=${PYTHON:-.venv/bin/python}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for run in first second; do
    echo "== $run run: ${examples[*]}" >&2
    "$python" -m tfspeedlab run "${examples[@]}" --runner cpu --out "$scratch/$run"
done
"$python" scripts/repeatability.py "$scratch/first/cpu" "$scratch/second/cpu" results/cpu "${examples[@]}"
