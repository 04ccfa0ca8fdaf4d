# Sourced by scripts/mcp-tools.sh and scripts/interop-clients.sh: a copy of their installed tools
# kept for the whole machine, so a fresh clone (or another worktree) on a machine that installed the
# same pinned versions once gets them by hard links in a second, not by a new npm install of
# ~1 GB (issue 26: `npm test` on a clean clone). The entry's name carries the install's stamp, so a
# changed pin is a new entry. Without a writable cache directory both scripts install as before.
#
# Only node_modules is linked (npm alone writes there); the top-level files (manifest, lockfile,
# stamp) are copied, and whatever the tests put beside them (runner scripts, client state) is not
# kept, so nothing a test writes in one clone reaches another.
TOOL_CACHE="${AGENTPORT_TOOL_CACHE:-/var/cache/agentport-test/tools}"

# tool_cache_copy <from> <to>: node_modules by hard links (a copy across file systems), top-level files copied.
tool_cache_copy() {
  mkdir -p "$2" || return 1
  cp -al "$1/node_modules" "$2/" 2>/dev/null || cp -a "$1/node_modules" "$2/" || return 1
  find "$1" -maxdepth 1 -type f -exec cp -p {} "$2/" \;
}

# tool_cache_restore <entry> <dir>: fills <dir> from the entry; fails when there is none.
tool_cache_restore() {
  local entry="$TOOL_CACHE/$1" dir=$2 tmp="$2.restore.$$"
  [ -d "$entry" ] || return 1
  rm -rf "$tmp"
  tool_cache_copy "$entry" "$tmp" || { rm -rf "$tmp"; return 1; }
  rm -rf "$dir"
  mv -T "$tmp" "$dir"
}

# tool_cache_save <entry> <dir>: keeps <dir> as the entry, unless there is one (another clone won).
tool_cache_save() {
  local entry="$TOOL_CACHE/$1" dir=$2 tmp="$TOOL_CACHE/.$1.$$"
  [ -d "$entry" ] && return 0
  mkdir -p "$TOOL_CACHE" 2>/dev/null || return 0
  tool_cache_copy "$dir" "$tmp" 2>/dev/null || { rm -rf "$tmp"; return 0; }
  # mv onto an existing entry fails (it is not empty): the other copy stays, this one goes.
  mv -T "$tmp" "$entry" 2>/dev/null || rm -rf "$tmp"
}
