/**
 * The MCP interop tools (Inspector CLI, conformance runner) run with their own Node 22, installed
 * once by scripts/mcp-tools.sh into .cache/mcp-tools. An install failure throws: these tests must
 * fail, not skip, on a machine that cannot get the tools.
 */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SCRIPT = path.join(ROOT, 'scripts/mcp-tools.sh');

let installed: Promise<void> | undefined;

/** Installs the tools (no-op when present); progress goes to this process's stderr. */
export function installMcpTools(): Promise<void> {
  installed ??= new Promise<void>((resolve, reject) => {
    const child = spawn(SCRIPT, ['install'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`scripts/mcp-tools.sh install exited with ${code}`))));
  });
  return installed;
}

export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/mcp-tools.sh <tool> ...args`; resolves with the exit code and output. */
export async function runMcpTool(tool: 'inspector' | 'conformance', args: string[], opts: { timeoutMs?: number; cwd?: string } = {}): Promise<ToolRun> {
  await installMcpTools();
  return new Promise((resolve) => {
    execFile(SCRIPT, [tool, ...args], { cwd: opts.cwd ?? ROOT, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
