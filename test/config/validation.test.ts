import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir, writeFile } from './helpers.js';

const parse = (input: unknown) => parseConfig(input, { cwd: tempDir(), env: {} });

describe('unknown keys', () => {
  it('names the full path of a nested unknown key and suggests the close match', () => {
    const error = configErrorOf(() => parse({ server: { grpc: { prot: 1 } } }));
    expect(problemLines(error)).toEqual(['server.grpc.prot: unknown key (did you mean "port"?)']);
  });

  it('lists the allowed keys when nothing is close', () => {
    const error = configErrorOf(() => parse({ cards: { colour: 'blue' } }));
    expect(problemLines(error)).toEqual(['cards.colour: unknown key (allowed here: sign, maxAgeSeconds, v03Fields)']);
  });

  it('rejects unknown top-level keys and keys inside list entries', () => {
    const error = configErrorOf(() => parse({ agent: [], agents: [{ id: 'a', builtin: 'echo', nmae: 'x' }] }));
    expect(error.problems.map((p) => p.path)).toEqual(['agent', 'agents[0].nmae']);
  });
});

describe('invalid values name the key and the value', () => {
  it('reports an out-of-range port', () => {
    const error = configErrorOf(() => parse({ server: { port: 70000 } }));
    expect(problemLines(error)).toEqual(['server.port: must be an integer from 0 to 65535 (got 70000)']);
  });

  it('reports a non-numeric port', () => {
    const error = configErrorOf(() => parse({ server: { grpc: { port: 'fast' } } }));
    expect(problemLines(error)).toEqual(['server.grpc.port: must be an integer from 0 to 65535 (got "fast")']);
  });

  it('reports an agent id that is not a slug, with its index', () => {
    const error = configErrorOf(() =>
      parse({
        agents: [
          { id: 'ok', builtin: 'echo' },
          { id: 'Foo Bar', builtin: 'echo' },
        ],
      }),
    );
    expect(error.problems).toHaveLength(1);
    expect(problemLines(error)[0]).toMatch(/^agents\[1\]\.id: must match \^\[a-z0-9\]\[a-z0-9_-\]\{0,62\}\$ .*\(got "Foo Bar"\)$/);
  });

  it('reports every problem at once, in file order, under a header naming the file', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'agentport.yaml', ['agents:', '  - id: Bad', '    builtin: echo', 'server:', '  port: -1', ''].join('\n'));
    const error = configErrorOf(() => loadConfig({ file, env: {} }));
    expect(error.file).toBe(file);
    expect(error.problems.map((p) => p.path)).toEqual(['agents[0].id', 'server.port']);
    expect(error.message.split('\n')[0]).toBe(`2 problems in the configuration in ${file}:`);
    expect(error.message).toContain('\n  server.port: must be an integer from 0 to 65535 (got -1)');
  });

  it('requires exactly one of builtin, module, mcp, remote and llm, naming every built-in', () => {
    const error = configErrorOf(() => parse({ agents: [{ id: 'a' }, { id: 'b', builtin: 'echo', module: './b.js' }] }));
    expect(problemLines(error)).toEqual([
      'agents[0]: set one of builtin (echo | conformance | table-expert), module (path to an ES module exporting an AgentDefinition), mcp ({ url } of a remote MCP server), remote ({ cardUrl } of a remote A2A agent) or llm ({ provider, model, instructions } of a model whose tools are hosted agents)',
      'agents[1]: set either builtin or module, not both',
    ]);
  });

  it('accepts a primaryAgent naming any agent of the default list when agents is left out', () => {
    expect(parse({ primaryAgent: 'table-expert' }).primaryAgent).toBe('table-expert');
    expect(problemLines(configErrorOf(() => parse({ primaryAgent: 'nope' })))).toEqual(['primaryAgent: no agent has this id (got "nope"; agents: echo, table-expert)']);
  });

  it('rejects duplicate agent ids and a primaryAgent that names no agent', () => {
    const error = configErrorOf(() =>
      parse({
        agents: [
          { id: 'a', builtin: 'echo' },
          { id: 'a', builtin: 'conformance' },
        ],
        primaryAgent: 'b',
      }),
    );
    expect(problemLines(error)).toEqual(['agents[1].id: duplicate agent id (got "a"; ids must be unique)', 'primaryAgent: no agent has this id (got "b"; agents: a, a)']);
  });

  it('asks for quotes when YAML read a string as a number', () => {
    const error = configErrorOf(() => parse({ agents: [{ id: 'a', builtin: 'echo', card: { version: 1 } }] }));
    expect(problemLines(error)).toEqual(['agents[0].card.version: must be a string (put the value in quotes) (got 1)']);
  });

  it('rejects an empty agent list', () => {
    const error = configErrorOf(() => parse({ agents: [] }));
    expect(error.problems[0]?.path).toBe('agents');
    expect(problemLines(error)).toEqual(['agents: must list at least one agent (leave the key out for the default agents: echo, table-expert) (got a list)']);
  });

  it('reports an unknown builtin with the allowed names', () => {
    const error = configErrorOf(() => parse({ agents: [{ id: 'a', builtin: 'parrot' }] }));
    expect(problemLines(error)).toEqual(['agents[0].builtin: must be one of "echo", "conformance", "table-expert" (got "parrot")']);
  });

  it('never echoes an API key back', () => {
    const error = configErrorOf(() => parse({ auth: { apiKeys: [{ key: 'tooshort', subject: 'ci' }] } }));
    expect(problemLines(error)).toEqual(['auth.apiKeys[0].key: must be at least 16 characters (got a string of 8 characters)']);
    expect(error.message).not.toContain('tooshort');
  });

  it('hides the password of a URL value it reports', () => {
    const error = configErrorOf(() => parse({ bus: 'amqp://user:hunter2@host/' }));
    expect(error.message).not.toContain('hunter2');
    expect(problemLines(error)).toEqual(['bus: must be "in-process" or a redis:// URL (got "amqp://user:***@host/")']);
  });

  it('reports a missing required key as required', () => {
    const error = configErrorOf(() => parse({ auth: { apiKeys: [{ key: 'k'.repeat(16) }] } }));
    expect(problemLines(error)).toEqual(['auth.apiKeys[0].subject: is required']);
  });

  it('rejects a file that is not a mapping', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'agentport.yaml', '- just\n- a list\n');
    const error = configErrorOf(() => loadConfig({ file, env: {} }));
    expect(error.problems[0]?.message).toMatch(/must be a mapping/);
  });

  it('reports YAML syntax errors with their line', () => {
    const dir = tempDir();
    const file = writeFile(dir, 'agentport.yaml', 'server:\n  port: 1\n  port: 2\n');
    const error = configErrorOf(() => loadConfig({ file, env: {} }));
    expect(error.problems[0]?.message).toMatch(/^line 3, column 3: /);
  });

  it('reports a named file that does not exist', () => {
    const error = configErrorOf(() => loadConfig({ file: 'missing.yaml', cwd: tempDir(), env: {} }));
    expect(error.file).toMatch(/missing\.yaml$/);
    expect(error.problems).toEqual([{ path: '', message: 'file not found' }]);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('CONFIG_INVALID');
  });
});

describe('value forms', () => {
  it('accepts sizes and durations with units', () => {
    const config = parse({ limits: { bodyBytes: '8MiB', headerBytes: '32 KiB', requestTimeoutMs: '90s', sseKeepAliveMs: '500ms', pushTimeoutMs: '1m' } });
    expect(config.limits).toMatchObject({
      bodyBytes: 8 * 1024 * 1024,
      headerBytes: 32 * 1024,
      requestTimeoutMs: 90_000,
      sseKeepAliveMs: 500,
      pushTimeoutMs: 60_000,
    });
  });

  it('rejects a size with an unknown unit', () => {
    const error = configErrorOf(() => parse({ limits: { bodyBytes: '4 parsecs' } }));
    expect(error.problems[0]?.path).toBe('limits.bodyBytes');
  });

  it('validates push allowlist entries', () => {
    expect(parse({ push: { allowlist: ['10.0.0.0/8', '::1', 'hooks.example.com', '*.example.org'] } }).push.allowlist).toHaveLength(4);
    const error = configErrorOf(() => parse({ push: { allowlist: ['10.0.0.0/40', 'http://x'] } }));
    expect(error.problems.map((p) => p.path)).toEqual(['push.allowlist[0]', 'push.allowlist[1]']);
  });

  it('keeps an explicit publicUrl without its trailing slash and rejects non-http ones', () => {
    expect(parse({ server: { publicUrl: 'https://agents.example.com/' } }).server).toMatchObject({
      publicUrl: 'https://agents.example.com',
      publicUrlDerived: false,
    });
    expect(configErrorOf(() => parse({ server: { publicUrl: 'ftp://x' } })).problems[0]?.path).toBe('server.publicUrl');
  });

  it('requires a gRPC publicUrl of the form host:port', () => {
    expect(parse({ server: { grpc: { publicUrl: 'grpc.example.com:443' } } }).server.grpc.publicUrl).toBe('grpc.example.com:443');
    expect(configErrorOf(() => parse({ server: { grpc: { publicUrl: 'https://grpc.example.com' } } })).problems[0]?.path).toBe('server.grpc.publicUrl');
  });

  it('derives public URLs from the bind address, bracketing IPv6 and replacing wildcards with localhost', () => {
    expect(parse({ server: { host: '::1', port: 1, grpc: { port: 2 } } }).server).toMatchObject({
      publicUrl: 'http://[::1]:1',
      grpc: { host: '::1', publicUrl: '[::1]:2' },
    });
    expect(parse({ server: { host: '0.0.0.0' } }).server.publicUrl).toBe('http://localhost:8080');
  });

  it('gives gRPC its own host when set', () => {
    expect(parse({ server: { host: '127.0.0.1', grpc: { host: '0.0.0.0', enabled: false } } }).server.grpc).toMatchObject({
      enabled: false,
      host: '0.0.0.0',
    });
  });

  it('resolves per-agent settings and falls back to auth.extendedCard', () => {
    const config = parse({
      auth: { extendedCard: false, apiKeys: [{ key: 'k'.repeat(16), subject: 'ci', scopes: ['a2a:send'] }] },
      agents: [
        { id: 'a', builtin: 'echo', streaming: false, skills: { echo: { visibility: 'extended' } }, card: { name: 'A' } },
        { id: 'b', builtin: 'conformance', extendedCard: true, requiredExtensions: ['https://example.com/ext/v1'] },
      ],
      primaryAgent: 'b',
    });
    expect(config.agents[0]).toEqual({
      id: 'a',
      builtin: 'echo',
      card: { name: 'A' },
      streaming: false,
      extendedCard: false,
      skills: { echo: { visibility: 'extended' } },
      requiredExtensions: [],
      options: {},
    });
    expect(config.agents[1]).toMatchObject({ extendedCard: true, requiredExtensions: ['https://example.com/ext/v1'] });
    expect(config.primaryAgent).toBe('b');
    expect(config.auth.apiKeys).toEqual([{ key: 'k'.repeat(16), subject: 'ci', scopes: ['a2a:send'] }]);
  });

  it('rejects duplicate API keys', () => {
    const key = 'k'.repeat(20);
    const error = configErrorOf(() =>
      parse({
        auth: {
          apiKeys: [
            { key, subject: 'a' },
            { key, subject: 'b' },
          ],
        },
      }),
    );
    expect(problemLines(error)).toEqual(['auth.apiKeys[1].key: duplicate API key (each key must be unique)']);
  });
});
