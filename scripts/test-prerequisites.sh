#!/usr/bin/env bash
# What the test suite needs besides npm packages, made ready on a fresh machine of the project's
# kind (Debian, root, PostgreSQL and Redis installed): `npm test` runs this first, so README's test
# command is the whole set-up. Every step is idempotent and does nothing when the thing is there.
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

# Debian packages the suites drive for real: nginx (test/deploy runs deploy/nginx in front of a
# server) and Chromium (test/server/pages-in-chromium.test.ts). The tests fail, naming the
# package, when one is missing and cannot be installed here.
missing=()
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/chromium ] || missing+=(chromium)
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

# Podman and the stand-in images test/deploy/image.test.ts builds deploy/Dockerfile on (no
# container registry here). A failure is reported, not fatal: that test then fails naming what is
# missing, and every other suite still runs.
bash scripts/test-container-images.sh || log "container images not ready: test/deploy/image.test.ts will fail (run scripts/test-container-images.sh)"

# The MCP interop tools (Inspector CLI, conformance runner) with their own Node 22, installed once
# into .cache/mcp-tools here rather than by the first test that needs them (no install inside the run).
log "MCP interop tools in $(bash scripts/mcp-tools.sh install)"

# The third-party MCP and A2A framework clients of the interop matrix (test/interop/clients), pinned,
# with their own Node 22, installed once into .cache/interop-clients likewise.
log "Interop framework clients in $(bash scripts/interop-clients.sh install)"
