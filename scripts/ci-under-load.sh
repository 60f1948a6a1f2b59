#!/usr/bin/env bash
# Proves the suite is reliable: runs CI (.ci/run) N times, each on a fresh clone of this repository's
# HEAD, while another process keeps one core busy (`yes > /dev/null`), as a loaded CI machine would.
# Prints each run's counts ("total: N passed, N failed") and time, then a summary; exits non-zero if
# any run failed. Logs stay in the work folder it prints.
#
#   scripts/ci-under-load.sh [runs=5]
#
# Environment: CI_LOAD_PROCS (busy processes, default 1), CI_LOAD_KEEP=1 keeps the clones,
# CI_LOAD_CORES=1 lets crashing processes dump core (a native crash, e.g. of @roamhq/wrtc, then
# leaves a `core` file in the clone for `gdb node core`; the clone is kept when one is found).
# The clone gets the committed HEAD only: commit first. A `shared/` folder beside the repository
# (CI has one next to its clone) is linked beside each clone when it exists.
set -euo pipefail

runs="${1:-5}"
load_procs="${CI_LOAD_PROCS:-1}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
head="$(git -C "$repo" rev-parse --short HEAD)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kb-voice-ci-load.XXXXXX")"
shared="$(cd "$repo/.." && pwd)/shared"

load_pids=()
ci_pid=""
stop_load() {
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  load_pids=()
}
# Interrupted: stop the CI run's whole process group (npm, vitest, Chromium…) too, then the load.
stop_all() {
  [ -n "$ci_pid" ] && kill -- -"$ci_pid" 2>/dev/null || true
  stop_load
}
trap stop_all EXIT
[ "${CI_LOAD_CORES:-0}" = 1 ] && ulimit -c unlimited

echo "ci-under-load: $runs run(s) of .ci/run on fresh clones of $head, $load_procs busy process(es); logs in $work"
[ -n "${CI_LOAD_PROCS:-}" ] || echo "ci-under-load: note: other work on this machine adds to the load"
failed=0
summary=()
for i in $(seq 1 "$runs"); do
  dir="$work/run-$i"
  mkdir -p "$dir"
  git clone --quiet --no-hardlinks "$repo" "$dir/kb-voice"
  git -C "$dir/kb-voice" checkout --quiet "$head"
  [ -d "$shared" ] && ln -s "$shared" "$dir/shared"
  for _ in $(seq 1 "$load_procs"); do
    yes > /dev/null &
    load_pids+=("$!")
  done
  started=$(date +%s)
  set +e
  # In its own process group (setsid), so that an interruption can stop all of it.
  (cd "$dir/kb-voice" && exec setsid bash .ci/run) > "$dir/ci.log" 2>&1 &
  ci_pid=$!
  wait "$ci_pid"
  code=$?
  ci_pid=""
  set -e
  seconds=$(( $(date +%s) - started ))
  stop_load
  total="$(grep -E '^total: ' "$dir/ci.log" | tail -1 || true)"
  errors="$(grep -cE 'Worker exited unexpectedly|Unhandled (Rejection|Error)' "$dir/ci.log" || true)"
  status=green
  if [ "$code" -ne 0 ]; then status=RED; failed=$((failed + 1)); fi
  line="run $i: $status, exit $code, ${total:-no total line}, ${seconds} s, vitest errors: ${errors}"
  echo "$line"
  sed -n '/^=== summary/,/^total: /p' "$dir/ci.log" | grep -E '^(ok|FAIL) ' | sed 's/^/    /' || true
  summary+=("$line")
  cores="$(find "$dir/kb-voice" -maxdepth 2 -type f -regex '.*/core\(\.[0-9]+\)?' 2>/dev/null || true)"
  if [ -n "$cores" ]; then
    echo "  core dumps (clone kept): $cores"
  elif [ "${CI_LOAD_KEEP:-0}" != 1 ]; then
    rm -rf "$dir/kb-voice"
  fi
done

echo
echo "ci-under-load: $head, $((runs - failed))/$runs green"
for line in "${summary[@]}"; do echo "  $line"; done
[ "$failed" -eq 0 ]
