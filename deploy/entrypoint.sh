#!/bin/sh
# Container entrypoint (also usable on a plain host): runs the `agentport` CLI from the install
# this script sits in (<install>/deploy/entrypoint.sh).
#   no arguments, or options first (`--port 9000`)  ->  agentport serve [options]
#   anything else (`db migrate`, `keys create ...`) ->  agentport <that>
# For `serve`, AGENTPORT_HOST and AGENTPORT_DATA_DIR (set in the image) become --host and
# --data-dir; set them empty to let the config file decide. AGENTPORT_CONFIG defaults to
# /etc/agentport/agentport.yaml when that file exists.
# The CLI is exec'd, so it is the process that gets SIGTERM and drains (docs/deploy.md).
# Node starts with the young generation the server ships with (ADR 0081, bin/agentport.js's
# shebang) unless NODE_OPTIONS names a --max-semi-space-size of its own: node's command line would
# win over NODE_OPTIONS, so the option is left off then.
set -eu

install_dir=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
cli="$install_dir/bin/agentport.js"

if [ -z "${AGENTPORT_CONFIG:-}" ] && [ -f /etc/agentport/agentport.yaml ]; then
  AGENTPORT_CONFIG=/etc/agentport/agentport.yaml
  export AGENTPORT_CONFIG
fi

if [ "$#" -eq 0 ]; then
  set -- serve
else
  case "$1" in
    -*) set -- serve "$@" ;;
  esac
fi

if [ "$1" = serve ]; then
  shift
  if [ -n "${AGENTPORT_DATA_DIR:-}" ]; then
    # A volume mounted with the wrong owner is the usual first failure: say so before the server
    # fails deeper down with EACCES.
    if ! mkdir -p -- "$AGENTPORT_DATA_DIR" 2>/dev/null || [ ! -w "$AGENTPORT_DATA_DIR" ]; then
      echo "agentport: the data dir $AGENTPORT_DATA_DIR is not writable by uid $(id -u); give the volume to that user (chown $(id -u)) or set AGENTPORT_DATA_DIR" >&2
      exit 73
    fi
    set -- --data-dir "$AGENTPORT_DATA_DIR" "$@"
  fi
  if [ -n "${AGENTPORT_HOST:-}" ]; then
    set -- --host "$AGENTPORT_HOST" "$@"
  fi
  set -- serve "$@"
fi

case " ${NODE_OPTIONS:-} " in
  *" --max-semi-space-size"* | *" --max_semi_space_size"*) exec node "$cli" "$@" ;;
  *) exec node --max-semi-space-size=64 "$cli" "$@" ;;
esac
