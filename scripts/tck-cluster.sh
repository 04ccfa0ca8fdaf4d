#!/usr/bin/env bash
# Runs the official A2A TCK against a 3-replica Agentport deployment (distributed mode on the local
# PostgreSQL and Redis) behind bench/rr-proxy.js, which spreads every HTTP request round-robin over
# the replicas and gRPC connections over their gRPC ports. Cards advertise the proxy.
#
#   TCK_MIRROR=<a2a-tck git dir> scripts/tck-cluster.sh [all|jsonrpc|http_json|grpc] [summary.json]
#
# Needs: npm run build, PostgreSQL on 127.0.0.1:5432 (database test), Redis on 127.0.0.1:6379.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
transport=${1:-all}
summary=${2:-$root/tck-cluster-summary.json}
work=$(mktemp -d /tmp/agentport-tck-cluster.XXXXXX)
schema="tck_$(date +%s)_$$"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q -h 127.0.0.1 -U postgres -d test -c "drop schema if exists $schema cascade" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

for i in 1 2 3; do
  cat >"$work/r$i.yaml" <<YAML
server:
  host: 127.0.0.1
  port: 1908$i
  publicUrl: http://127.0.0.1:9999
  dataDir: $work/r$i
  logLevel: warn
  grpc: { port: 5006$i, publicUrl: "127.0.0.1:50051" }
storage: { driver: postgres, url: postgres://postgres@127.0.0.1:5432/test, schema: $schema }
bus: { driver: redis, url: redis://127.0.0.1:6379, prefix: $schema }
cluster: { replicaId: r$i }
agents:
  - { id: conformance, builtin: conformance, extendedCard: true }
  - { id: echo, builtin: echo }
primaryAgent: conformance
auth: { mode: none, anonymousExtendedCard: true }
push: { allowHttp: true, allowlist: [localhost, 127.0.0.1, "::1"] }
YAML
done

node bin/agentport.js db migrate --config "$work/r1.yaml"
for i in 1 2 3; do
  node bin/agentport.js serve --config "$work/r$i.yaml" >"$work/r$i.log" 2>&1 &
  pids+=($!)
done
node bench/rr-proxy.js --listen 9999 --upstream http://127.0.0.1:19081,http://127.0.0.1:19082,http://127.0.0.1:19083 \
  --tcp-listen 50051 --tcp-upstream 127.0.0.1:50061,127.0.0.1:50062,127.0.0.1:50063 >"$work/proxy.log" 2>&1 &
pids+=($!)
for i in 1 2 3; do
  for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:1908$i/readyz" >/dev/null && break; sleep 0.2; done
done
echo "[tck-cluster] 3 replicas ready behind http://127.0.0.1:9999 (schema $schema)"
../shared/tools/a2a-tck/run-tck.sh http://127.0.0.1:9999 "$transport" "$summary"
for i in 1 2 3; do
  if grep -q '"level":50' "$work/r$i.log"; then echo "[tck-cluster] errors logged by r$i:"; grep '"level":50' "$work/r$i.log" | head -5; fi
done
