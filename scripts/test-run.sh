#!/usr/bin/env bash
# `npm test` (issue 26; docs/testing.md, "Suite time"): the prerequisites and checks
# (scripts/test-prepare.sh), then `unit`, then `system-shared` and `system` side by side, two
# `vitest run`s started here. One after another, each project ended in a tail where its workers
# idled on the last long files (system-shared used 1.45 of 2 cores, system 1.73); side by side,
# one's waits (podman, npm, Chromium, timers) are filled by the other's CPU work. Both run to their
# end; this fails when either fails. Each one's output is printed whole when it ends, the first to
# end first, so the two are not interleaved line by line. A failed prepare or `unit` stops the run
# there, as before. `scripts/test-run.sh system` (`npm run test:system`) runs the two alone.
#
# Workers (docs/testing.md, "Suite time", session 31): AGENTPORT_TEST_UNIT_WORKERS,
# AGENTPORT_TEST_SHARED_WORKERS and AGENTPORT_TEST_SYSTEM_WORKERS change them for a measurement.
# AGENTPORT_TEST_SIDE_BY_SIDE=0 runs the two one after another (3 workers each), as before: on a
# machine other runs already saturate, side by side starves the timed tests more.
set -uo pipefail
cd "$(dirname "$0")/.."
PATH="$PWD/node_modules/.bin:$PATH"

unit_workers=${AGENTPORT_TEST_UNIT_WORKERS:-3}
shared_workers=${AGENTPORT_TEST_SHARED_WORKERS:-3}
system_workers=${AGENTPORT_TEST_SYSTEM_WORKERS:-2}

say() { printf '[test] %s\n' "$*"; }

if [ "${1:-}" != system ]; then
  bash scripts/test-prepare.sh || exit 1
  # --minWorkers equal to --maxWorkers: with fewer kept workers, vitest 3.2.7 ended a run without
  # isolation with "Terminating worker thread" and one queued file not run (docs/testing.md).
  vitest run --project unit --no-isolate --minWorkers="$unit_workers" --maxWorkers="$unit_workers" || exit 1
fi

if [ "${AGENTPORT_TEST_SIDE_BY_SIDE:-1}" = 0 ]; then
  vitest run --project system-shared --no-isolate --minWorkers=3 --maxWorkers=3 || failed=1
  vitest run --project system || failed=1
  exit "${failed:-0}"
fi

# vitest colours its output only on a terminal; the logs below are files, printed to ours.
[ -t 1 ] && export FORCE_COLOR=1
logs=$(mktemp -d "${TMPDIR:-/tmp}/agentport-test-run.XXXXXX")
declare -A project_of started_at
start() {
  local name=$1
  shift
  vitest run --project "$name" "$@" >"$logs/$name.log" 2>&1 &
  project_of[$!]=$name
  started_at[$name]=$SECONDS
}
trap 'kill "${!project_of[@]}" 2>/dev/null; rm -rf "$logs"; exit 130' INT TERM
# `system` first: its longest files (test/deploy/image.test.ts, test/cli/init-scaffold.test.ts,
# first by test/durations.json) mostly wait on podman and npm, and now start with the rest.
start system --maxWorkers="$system_workers"
start system-shared --no-isolate --minWorkers="$shared_workers" --maxWorkers="$shared_workers"
say "system and system-shared run side by side ($system_workers + $shared_workers workers); each one's output follows when it ends"

failed=0
for _ in 1 2; do
  wait -n -p ended "${!project_of[@]}"
  status=$?
  name=${project_of[$ended]}
  unset "project_of[$ended]"
  cat "$logs/$name.log"
  say "$name ended with exit $status after $((SECONDS - started_at[$name])) s"
  [ "$status" -eq 0 ] || failed=1
done
rm -rf "$logs"
exit "$failed"
