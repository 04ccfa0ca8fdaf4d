/**
 * `@modelcontextprotocol/conformance@0.2.0-alpha.12 server --requirements <revision>` against an
 * auth-disabled Agentport serving the suite's fixtures (the MCP fixture module
 * test/support/mcp-conformance/fixture-module.ts as `mcp.fixtureModule`, and the tasks-extension
 * fixture agent loaded from test/support/mcp-conformance/task-agent.ts). The
 * runner exits 0 only when every scored scenario of the revision passes (or is listed in the
 * expected-failures file, test/bindings/mcp/conformance-expected-failures.yaml, which must stay accurate:
 * a listed scenario that passes also fails the run).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../support/server.js';
import { post } from './clients.js';
import { installMcpTools, runMcpTool, type ToolRun } from './mcp-tools.js';

/**
 * Failed checks (not scenarios) the runner still reports per revision while exiting 0. A revision at
 * 0 must stay there: any failed check fails the test. A revision above 0 may only go down (lower the
 * number when it does); which checks fail is printed.
 */
const FAILED_CHECKS_CEILING: Record<string, number> = { '2025-11-25': 0, '2026-07-28': 32 };

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXPECTED_FAILURES = path.join(HERE, 'conformance-expected-failures.yaml');
/** The suite's fixture tools, resources and prompts, a test-only MCP fixture module (src/bindings/mcp/surface/fixture-module.ts). */
const FIXTURE_MODULE = path.join(HERE, '../../support/mcp-conformance/fixture-module.ts');
/** The tasks-extension fixtures, an agent module of the test support (its id is the one the fixture module maps fixture tools to). */
const FIXTURE_AGENT = { id: 'mcp-conformance', module: path.join(HERE, '../../support/mcp-conformance/task-agent.ts') };

/** `✓ name: 3 passed, 0 failed` lines of the runner's summary. */
function summary(stdout: string): Map<string, { passed: number; failed: number }> {
  const out = new Map<string, { passed: number; failed: number }>();
  const section = stdout.slice(stdout.lastIndexOf('=== SUMMARY ==='));
  for (const m of section.matchAll(/^[✓✗] ([\w/.-]+): (\d+) passed, (\d+) failed/gm)) out.set(m[1]!, { passed: Number(m[2]), failed: Number(m[3]) });
  return out;
}

/** The `✗ name: …` lines, for a failure message. */
function failedChecks(stdout: string): string {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('✗'))
    .join('\n');
}

/**
 * Scenarios whose requests name no suite fixture (no `test_*` tool, `test://` resource or fixture
 * prompt): they must pass against the default configuration, fixtures off.
 */
const FIXTURE_FREE: Record<string, string[]> = {
  '2026-07-28': ['tools-list', 'resources-list', 'prompts-list', 'sep-2164-resource-not-found', 'dns-rebinding-protection', 'caching', 'http-header-validation', 'server-sse-multiple-streams'],
  '2025-11-25': ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'resources-list', 'prompts-list', 'dns-rebinding-protection', 'server-sse-multiple-streams'],
};

/** The suite's fixtures on: the server the scored runs go against. */
const WITH_FIXTURES = { auth: { mode: 'none' }, mcp: { fixtureModule: FIXTURE_MODULE }, agents: [{ id: 'echo', builtin: 'echo' }, FIXTURE_AGENT] };
/** The default configuration: the server the fixture-free runs go against. */
const PLAIN = { auth: { mode: 'none' } };

describe('MCP conformance suite (server leg)', () => {
  let outDir: string;
  beforeAll(async () => {
    await installMcpTools();
    outDir = await mkdtemp(path.join(tmpdir(), 'agentport-conformance-'));
  }, 300_000);
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  /**
   * One runner against a server of its own, in a directory of its own. The four runs go side by
   * side: a run mostly waits on its scenarios' own pauses and timeouts, and with a server each no
   * run can see another's tasks, sessions, subscriptions or log level.
   */
  async function runAgainstOwnServer(config: Record<string, unknown>, run: string, args: string[]): Promise<ToolRun> {
    const dir = path.join(outDir, run);
    await mkdir(dir);
    const s = await startTestServer(config);
    try {
      return await runMcpTool('conformance', ['server', '--url', `${s.http}/mcp`, ...args, '-o', path.join(dir, 'results')], { timeoutMs: 240_000, cwd: dir });
    } finally {
      await s.stop();
    }
  }

  it.concurrent.for(['2025-11-25', '2026-07-28'])('passes every scored scenario of --requirements %s', { timeout: 300_000 }, async (revision, { expect }) => {
    const r = await runAgainstOwnServer(WITH_FIXTURES, revision, ['--requirements', revision, '--expected-failures', EXPECTED_FAILURES]);
    const scenarios = summary(r.stdout);
    const total = r.stdout.match(/Total: (\d+) passed, (\d+) failed/);
    process.stderr.write(`conformance ${revision}: ${scenarios.size} scenarios, ${total?.[0] ?? 'no total'}\n`);
    const withFailedChecks = [...scenarios].filter(([, c]) => c.failed > 0).map(([name, c]) => `${name}: ${c.failed} failed`);
    if (withFailedChecks.length) process.stderr.write(`conformance ${revision}: failed checks in ${withFailedChecks.join('; ')}\n`);
    expect(total, r.stdout.slice(-3000)).not.toBeNull();
    expect(Number(total![2]), `failed checks (${withFailedChecks.join('; ')})`).toBeLessThanOrEqual(FAILED_CHECKS_CEILING[revision]!);
    expect(scenarios.size, r.stdout.slice(-3000)).toBeGreaterThan(20);
    expect(r.code, r.stdout.slice(-4000) + r.stderr.slice(-2000)).toBe(0);
    // Every check, scored or not (the tasks extension's scenarios are reported but not scored).
    expect(total, r.stdout.slice(-3000)).not.toBeNull();
    expect(Number(total![2]), failedChecks(r.stdout)).toBe(0);
    expect([...scenarios].filter(([, v]) => v.failed > 0).map(([k]) => k)).toEqual([]);
    // Protocol-level scenarios that need no fixture must pass outright.
    for (const name of ['tools-list', 'resources-list', 'dns-rebinding-protection', revision === '2026-07-28' ? 'server-stateless' : 'server-initialize']) {
      expect(scenarios.get(name), name).toMatchObject({ failed: 0 });
    }
  });

  // Concurrent too, so that its two runs start with the two above (vitest runs consecutive
  // concurrent children of a suite together).
  describe.concurrent('with the default configuration (no fixtures)', () => {
    it.for(Object.keys(FIXTURE_FREE))('passes every fixture-free scenario of --requirements %s', { timeout: 300_000 }, async (revision, { expect }) => {
      const r = await runAgainstOwnServer(PLAIN, `plain-${revision}`, ['--requirements', revision]);
      const scenarios = summary(r.stdout);
      for (const name of FIXTURE_FREE[revision]!) {
        expect(scenarios.get(name), `${name}\n${failedChecks(r.stdout)}`).toMatchObject({ failed: 0 });
        expect(scenarios.get(name)!.passed, name).toBeGreaterThan(0);
      }
    });
  });

  it('is off by default: a plain instance lists no fixture tools', async () => {
    const plain = await startTestServer({ auth: { mode: 'none' }, agents: [{ id: 'echo', builtin: 'echo' }] });
    try {
      const r = await post(`${plain.http}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const names = (r.json.result.tools as Array<{ name: string }>).map((t) => t.name);
      expect(names).toContain('echo_echo');
      expect(names.some((n) => n.startsWith('test_'))).toBe(false);
      // nor the tasks fixtures, nor their agent
      expect(names.filter((n) => ['greet', 'slow_compute', 'failing_job'].includes(n) || n.startsWith('mcp-conformance'))).toEqual([]);
      const agents = (await (await fetch(`${plain.http}/api/v1/agents`)).json()) as { agents: Array<{ id: string }> };
      expect(agents.agents.map((a) => a.id)).toEqual(['echo']);
    } finally {
      await plain.stop();
    }
  });
});
