// The PostgreSQL backends serving one local process, for charging their CPU to it: the process's
// TCP sockets (its /proc fd links → the kernel's socket inodes → /proc/net/tcp's local ports)
// matched with pg_stat_activity's client_port. PostgreSQL must run on this machine.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { processCpuSeconds } from './proc.mjs';

/** The local ports of `pid`'s TCP connections to `remotePort`. */
function localPorts(pid, remotePort) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9])) continue;
      if (Number.parseInt(f[2].split(':')[1], 16) === remotePort) ports.add(Number.parseInt(f[1].split(':')[1], 16));
    }
  }
  return ports;
}

/** The pids of the backends serving `pid`'s connections, asked through `client` (a connected pg.Client). */
export async function backendPids(client, pid, serverPort = 5432) {
  const ports = localPorts(pid, serverPort);
  if (ports.size === 0) return [];
  const r = await client.query('select pid, client_port from pg_stat_activity where client_port = any($1::int[])', [[...ports]]);
  return r.rows.map((row) => row.pid);
}

/** CPU seconds of the given backends (those gone since count nothing). */
export function backendsCpuSeconds(pids) {
  return pids.reduce((sum, p) => sum + (processCpuSeconds(p) ?? 0), 0);
}
