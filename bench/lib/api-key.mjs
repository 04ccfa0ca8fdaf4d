// An API key for a bench server, made with the real CLI (`agentport keys create`) in the server's
// fresh SQLite database before it starts; throws with the CLI's own message when it cannot.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export function createBenchKey(agentportBin, dataDir) {
  const args = ['keys', 'create', '--storage', `sqlite:${path.join(dataDir, 'agentport.db')}`, '--subject', 'bench', '--scope', 'a2a:publish', '--scope', 'a2a:discover', '--scope', 'mcp:tools'];
  const r = spawnSync(process.execPath, [agentportBin, ...args], { cwd: path.dirname(path.dirname(agentportBin)), encoding: 'utf8' });
  const key = /\bap_[0-9a-f]{16}_\S+/.exec(r.stdout ?? '')?.[0];
  if (r.status !== 0 || !key) throw new Error(`could not create an API key: ${(r.stderr || r.stdout).trim()}`);
  return key;
}
