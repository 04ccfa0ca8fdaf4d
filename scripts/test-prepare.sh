#!/usr/bin/env bash
# What `npm test` runs before vitest: the prerequisites (scripts/test-prerequisites.sh) and the
# checks (scripts/test-checks.sh: build, typecheck, lint) side by side (issue 26). Neither needs
# the other: the checks read and write the checkout only, the prerequisites install Debian
# packages, tools under .cache/ and container images, and start services. On a fresh machine the
# prerequisites take minutes mostly waiting on the network and dpkg, which the checks' CPU work
# fills; on a machine that has them they take a second, and this is the checks alone. Both run to
# their end; this fails when either fails.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/test-prerequisites.sh &
prerequisites=$!
bash scripts/test-checks.sh
checks=$?
wait "$prerequisites"
prepared=$?

[ "$prepared" -eq 0 ] || printf '[test prepare] scripts/test-prerequisites.sh failed (exit %s)\n' "$prepared"
[ "$checks" -eq 0 ] && [ "$prepared" -eq 0 ]
