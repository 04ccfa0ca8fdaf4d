#!/usr/bin/env bash
# The steps `npm test` runs before vitest: build, typecheck and lint, side by side (issue 26). Each is
# one single-threaded process for most of its time (tsc, vite, biome, depcruise), and none reads
# what another writes (typecheck and lint read sources only; the build writes dist/), so on two
# cores they finish in about half the time one after the other takes. Every step still runs to its
# end; the script fails when any of them fails, printing that step's output.
set -uo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d "${TMPDIR:-/tmp}/agentport-checks.XXXXXX")
trap 'rm -rf "$logs"' EXIT

names=(build typecheck lint)
pids=()
for name in "${names[@]}"; do
  # `time` of bash, into the step's own log: each step's duration shows which one bounds the rest.
  ( TIMEFORMAT="$name: %R s"; time npm run --silent "$name" >"$logs/$name.log" 2>&1 ) 2>"$logs/$name.time" &
  pids+=($!)
done

failed=()
for i in "${!names[@]}"; do
  name=${names[$i]}
  if wait "${pids[$i]}"; then
    printf '[checks] %s passed (%s)\n' "$name" "$(cat "$logs/$name.time")"
  else
    failed+=("$name")
    printf '[checks] %s FAILED (%s):\n' "$name" "$(cat "$logs/$name.time")"
    cat "$logs/$name.log"
  fi
done

[ ${#failed[@]} -eq 0 ] || { printf '[checks] failed: %s\n' "${failed[*]}"; exit 1; }
