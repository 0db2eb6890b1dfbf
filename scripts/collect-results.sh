#!/usr/bin/env bash
# Lay out results/<runner>/ for the site build from whatever the benchmark jobs produced.
#
#   scripts/collect-results.sh ARTIFACTS_DIR RESULTS_DIR RUNNER...
#
# For each RUNNER, ARTIFACTS_DIR/results-RUNNER/ is the artifact that runner's
# benchmark job uploaded (its results/<runner>/ folder). When it is there and
# holds results, it replaces RESULTS_DIR/RUNNER/ and the marker
# RESULTS_DIR/RUNNER/SOURCE says "ci". When it is not (the job was skipped,
# failed, or never ran), the committed RESULTS_DIR/RUNNER/ stays as it is and
# the marker says "committed", so the page can tell readers which they see.
# A runner with neither gets no folder and no marker: the site then says it
# has no results rather than showing an empty table.
set -euo pipefail

if (($# < 3)); then
    echo "usage: $0 ARTIFACTS_DIR RESULTS_DIR RUNNER..." >&2
    exit 2
fi
artifacts=$1
results=$2
shift 2

summary() {
    echo "$1"
    # On GitHub Actions the same line also lands on the run's summary page.
    if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
        echo "- $1" >>"$GITHUB_STEP_SUMMARY"
    fi
}

for runner in "$@"; do
    # The name becomes a path; refuse anything that could step outside RESULTS_DIR.
    if [[ ! $runner =~ ^[a-z0-9_-]+$ ]]; then
        echo "collect-results: bad runner name '$runner'" >&2
        exit 2
    fi
    downloaded="$artifacts/results-$runner"
    target="$results/$runner"
    if compgen -G "$downloaded/*.json" >/dev/null; then
        # The artifact is the runner's whole folder after a complete run, so it
        # replaces the committed one rather than mixing with it.
        # The release history and the sample diagnoses are measured by their
        # own commands, not by this run: the committed ones stay unless the
        # artifact brings them.
        kept=$(mktemp -d)
        for folder in history diagnose; do
            if [[ -d $target/$folder && ! -d $downloaded/$folder ]]; then
                mv "$target/$folder" "$kept/"
            fi
        done
        rm -rf "$target"
        mkdir -p "$target"
        cp -R "$downloaded/." "$target/"
        for folder in history diagnose; do
            if [[ -d $kept/$folder ]]; then
                mv "$kept/$folder" "$target/$folder"
            fi
        done
        rmdir "$kept"
        echo ci >"$target/SOURCE"
        summary "$runner: results measured in this CI run"
    elif [[ -d $target ]]; then
        echo committed >"$target/SOURCE"
        summary "$runner: no results from this run; the site shows the committed ones"
    else
        summary "$runner: no results from this run and none committed"
    fi
done
