#!/usr/bin/env bash
# What the test suite needs besides npm packages, made ready on a fresh machine of the project's
# kind (Debian, root, PostgreSQL and Redis installed): `npm test` runs this before vitest (beside
# the checks: scripts/test-prepare.sh), so README's test command is the whole set-up. Every step
# is idempotent and does nothing when the thing is there.
set -euo pipefail

log() { printf '[test prerequisites] %s\n' "$*"; }

# PostgreSQL: the store contract, cluster and deploy suites run against 127.0.0.1:5432.
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  log "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432 -q || { log "PostgreSQL is not reachable on 127.0.0.1:5432"; exit 1; }

# Redis: the distributed-mode suites use it on 127.0.0.1:6379.
if command -v redis-cli >/dev/null && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  log "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi

# The MCP interop tools (Inspector CLI, conformance runner) and the third-party MCP and A2A framework
# clients of the interop matrix (test/interop/clients), pinned, each with its own Node 22, installed
# once into .cache/ here rather than by the first test that needs them. On a machine without them
# (a fresh VM: no tool cache either) these are two npm installs of about a minute each, mostly
# waiting on the network: they start here and run beside the Debian packages and the container
# images below, which wait on the network and dpkg too (issue 26; docs/testing.md, "Suite time").
logs=$(mktemp -d "${TMPDIR:-/tmp}/agentport-prerequisites.XXXXXX")
trap 'wait; rm -rf "$logs"' EXIT
bash scripts/mcp-tools.sh install >"$logs/mcp-tools.out" 2>"$logs/mcp-tools.log" &
mcp_tools=$!
bash scripts/interop-clients.sh install >"$logs/interop-clients.out" 2>"$logs/interop-clients.log" &
interop_clients=$!

# tool_ready <pid> <name> <what>: waits for that install and reports where it is, or its output on failure.
tool_ready() {
  if wait "$1"; then
    log "$3 in $(cat "$logs/$2.out")"
  else
    cat "$logs/$2.log" >&2
    log "$3 not installed (bash scripts/$2.sh install): the tests that use them will fail"
  fi
}

# Debian packages the suites drive for real: nginx (test/deploy runs deploy/nginx in front of a
# server), Chromium (test/server/pages-in-chromium.test.ts), and what
# scripts/test-container-images.sh needs (podman and its tools), all in one apt-get run: one
# package-list update instead of two. The tests fail, naming the package, when one is missing
# and cannot be installed here.
missing=()
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/chromium ] || missing+=(chromium)
for tool in podman buildah runc catatonit debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing ${missing[*]} from Debian's packages"
    # Another run on the machine (a second clone's npm test) may be installing too: wait for
    # dpkg's lock instead of failing at once (apt-get exits 100 on a held lock).
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
  else
    log "missing ${missing[*]}: install them (apt-get install ${missing[*]}); the tests that need them will fail"
  fi
fi

# start_image_build: test/deploy/image.test.ts's build of deploy/Dockerfile and its stages (the same
# podman arguments: `node scripts/image-build.mjs early`), started now in the background and left
# running when this script ends. A cold build is 5 min or more, much of it waiting on downloads (the
# build stage's apt-get and `npm ci`); from here it overlaps the checks, `unit` and `system-shared`,
# and the test waits for it under the same lock. It ends by writing what it built from
# ($cache/image-build-early.json): the test builds again only when its tree differs. Niced: until then
# it takes the CPU that the checks and the tests leave idle rather than slowing them; the test puts
# it back to normal priority when it starts waiting for it ($cache/image-build.pid). The shipped
# Dockerfile is built as it is; only the time it is built changes. AGENTPORT_EARLY_IMAGE_BUILD=0
# leaves the build to the test.
start_image_build() {
  [ "${AGENTPORT_EARLY_IMAGE_BUILD:-1}" != 0 ] || return 0
  local cache=/var/cache/agentport-test
  if ! node scripts/image-build.mjs args >/dev/null; then
    log "not starting the image build early: scripts/image-build.mjs failed"
    return 0
  fi
  if ! flock -n "$cache/image-build.lock" true; then
    log "an image build is under way (an earlier run's): the image test builds after it"
    return 0
  fi
  log "building deploy/Dockerfile in the background for test/deploy/image.test.ts ($cache/agentport-build-early.log)"
  # flock -o: the lock is held by flock alone, not passed on to podman's own children.
  CONTAINERS_CONF=$cache/containers.conf nohup flock -o "$cache/image-build.lock" nice -n 10 node scripts/image-build.mjs early \
    </dev/null >"$cache/agentport-build-early.log" 2>&1 &
  echo $! >"$cache/image-build.pid"
  disown
}

# Podman and the stand-in images test/deploy/image.test.ts builds deploy/Dockerfile on (no
# container registry here). A failure is reported, not fatal: that test then fails naming what is
# missing, and every other suite still runs.
if bash scripts/test-container-images.sh; then
  start_image_build
else
  log "container images not ready: test/deploy/image.test.ts will fail (run scripts/test-container-images.sh)"
fi

tool_ready "$mcp_tools" mcp-tools "MCP interop tools"
tool_ready "$interop_clients" interop-clients "Interop framework clients"
