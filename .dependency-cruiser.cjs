/**
 * Dependency rules of src/ (docs/decisions/0013-dependency-rules.md), checked by `npm run lint:deps`.
 *
 * Dependencies point inward. From the outside in:
 *
 *   index.ts, testing/           the package's entry points
 *   cli/                         the `agentport` command
 *   server/                      composes everything: listeners, lifecycle, the agent loader
 *   agents/load-agent.ts …       the agent loader and the built-in agents it knows
 *   bindings/                    the faces (ADR 0041): A2A JSON-RPC, HTTP+JSON, gRPC, MCP, and the
 *                                routes: cards, management, the Novaeden API, console, health, …
 *   auth/                        who is calling (API keys, JWT, the OAuth authorization server)
 *   edge/                        admission of a request: the context every face gets
 *   core/                        the engine: tasks, execution, authorization, push; its parts in
 *                                a strict order of their own (CORE_ORDER below)
 *   bus/, store/                 event bus and storage behind their interfaces
 *   net/, protocol/, config/,    the bottom: outbound network, wire formats, configuration,
 *   observability/, memory/      metrics, traces and logs (every layer reports into it), and
 *                                collections shaped for the garbage collector
 *
 * A layer may import any layer below it, never one above. Beside the stack:
 *   agents/sdk/                  what agent authors import: the agent contract (kept in core) and
 *                                protocol types, nothing else of the engine
 *   agents/<built-in>/           the SDK, protocol, net, config, the client, and core types only
 *   client/                      the A2A client library (`agentport/client`): protocol and net only
 *
 * Type-only imports count: a type that runs back up ties the layers together just as a value does.
 *
 * EXCEPTIONS lists the imports that still break a rule while issue 12 is under way, each with its
 * reason; delete an entry once its import is gone (`npm run lint:deps` then still passes).
 */

/** Imports that break a layer rule for now: [from file, to file, reason]. */
const EXCEPTIONS = [];

/** Import circles that remain for now: [file, reason]. None. */
const CIRCULAR_EXCEPTIONS = [];

const file = (p) => `^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
const under = (...folders) => folders.map((f) => (f.endsWith('.ts') ? file(`src/${f}`) : `^src/${f}/`));

/** The built-in agents: every folder of src/agents except the SDK. */
const BUILT_IN_AGENT = '^src/agents/(?!sdk/)[^/]+/';
const AGENT_LOADER = under('agents/load-agent.ts', 'agents/import-agent-module.ts');

/**
 * A rule that files under `from` import nothing in src/ but `allowed`, less the exceptions: a file
 * with an exception gets its own rule that also lets its excepted imports through.
 */
function layer(name, comment, from, allowed, extra = {}) {
  const own = EXCEPTIONS.filter(([f]) => from.some((p) => new RegExp(p).test(f)));
  const byFile = new Map();
  for (const [f, t] of own) byFile.set(f, [...(byFile.get(f) ?? []), file(t)]);
  const rule = (fromPart, allow) => ({
    name,
    comment,
    severity: 'error',
    from: fromPart,
    to: { path: '^src/', pathNot: allow, ...extra },
  });
  return [
    rule({ path: from, pathNot: [...byFile.keys()].map(file) }, allowed),
    ...[...byFile].map(([f, targets]) => rule({ path: file(f) }, [...allowed, ...targets])),
  ];
}

const BOTTOM = under('protocol', 'config', 'net', 'observability', 'memory');

/**
 * The parts of core, from the top down (docs/architecture.md, "The order of core's parts"): a part
 * imports parts on lower rows only, never one on its own row or above. Each row's parts are
 * independent of each other. Core's own files (a2a-handler.ts, operations.ts, pipeline.ts) are one
 * part, the call contract.
 */
const CORE_ORDER = [
  ['stages'], // the call pipeline's stages: surface, trace, resolve, authorize, quota
  ['tasks'], // the task service: the operations, message intake, waits, task streams
  ['cluster'], // leases, forwarding to the owner replica, orphans
  ['execution'], // running an agent: the run supervisor, one run
  ['push'], // push delivery, signing, the webhook check
  ['task-state', 'quotas'], // working copies, the task log, the projection | the quota engine
  ['contract'], // core's own files: CallContext and A2AHandler, the operation table, the pipeline
  ['usage', 'keys', 'vault'], // the usage draft and records | signing keys | the token vault
  ['authz'], // who calls and what they may do: principal, scopes, policy
  ['agents', 'audit', 'ids', 'streams'], // the agent contract and registry, the audit log, ids, stream plumbing
];
const corePart = (part) => (part === 'contract' ? '^src/core/[^/]+\\.ts$' : `^src/core/${part}/`);

/** One rule per part of core: nothing on its own row (but itself) or above it. */
function coreOrder() {
  return CORE_ORDER.flatMap((row, i) =>
    row
      .map((part) => ({ part, above: [...CORE_ORDER.slice(0, i).flat(), ...row.filter((p) => p !== part)] }))
      .filter(({ above }) => above.length > 0)
      .map(({ part, above }) => ({
        name: `core-order-${part}`,
        comment: `core/${part === 'contract' ? '*.ts' : part} imports only the parts of core below its row (CORE_ORDER).`,
        severity: 'error',
        from: { path: corePart(part) },
        to: { path: above.map(corePart) },
      })),
  );
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles: a circle makes two files one concept, and breaks load order.',
      severity: 'error',
      from: { pathNot: CIRCULAR_EXCEPTIONS.map(([f]) => file(f)) },
      to: { circular: true },
    },
    {
      name: 'no-entry-point-imports',
      comment: 'index.ts and testing/ are what users import; nothing inside src builds on them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: [file('src/index.ts'), '^src/testing/'] },
    },
    ...layer('cli', 'The command sits on top; nothing but the entry points is above it.', under('cli'), [
      ...under('cli', 'server', 'client', 'agents', 'bindings', 'auth', 'edge', 'core', 'bus', 'store'),
      ...BOTTOM,
    ]),
    ...layer('server', 'The server composes the layers below it and never reaches up to the CLI.', under('server'), [
      ...under('server', 'bindings', 'auth', 'edge', 'core', 'bus', 'store', 'agents/sdk'),
      ...AGENT_LOADER,
      ...BOTTOM,
    ]),
    ...layer(
      'agent-loader',
      'The agent loader knows the built-ins; it is used by the server only.',
      AGENT_LOADER,
      [...AGENT_LOADER, BUILT_IN_AGENT, ...under('agents/sdk'), ...BOTTOM],
    ),
    {
      name: 'built-ins-through-the-loader',
      comment: 'A built-in agent is reached through the agent loader, never imported by a face or the core.',
      severity: 'error',
      from: { path: '^src/', pathNot: [...AGENT_LOADER, BUILT_IN_AGENT, ...EXCEPTIONS.filter(([, t]) => new RegExp(BUILT_IN_AGENT).test(t)).map(([f]) => file(f))] },
      to: { path: BUILT_IN_AGENT },
    },
    ...layer('bindings', 'Faces decode and encode; they call auth, the edge and the core, and know no agent.', under('bindings'), [
      ...under('bindings', 'auth', 'edge', 'core', 'bus', 'store'),
      ...BOTTOM,
    ]),
    ...layer('auth', 'Authentication sits below the faces: it never imports a binding.', under('auth'), [
      ...under('auth', 'edge', 'core', 'bus', 'store'),
      ...BOTTOM,
    ]),
    ...layer('edge', 'The edge admits requests for every face; it knows no face and no authenticator.', under('edge'), [
      ...under('edge', 'core', 'bus', 'store'),
      ...BOTTOM,
    ]),
    ...layer('core', 'The core decides; it imports no face, no framework adapter, no agent.', under('core'), [
      ...under('core', 'bus', 'store'),
      ...BOTTOM,
    ]),
    ...coreOrder(),
    {
      name: 'core-part-in-order',
      comment: 'Every folder of core has its row in CORE_ORDER, so the order rules see it.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: CORE_ORDER.flat().map(corePart) },
      to: { path: '^src/' },
    },
    ...layer(
      'bus',
      'The bus carries the event record, the one thing it takes from the store (store/task-event-record.ts).',
      under('bus'),
      [...under('bus', 'store/task-event-record.ts'), ...BOTTOM],
    ),
    ...layer('store', 'Storage knows wire types and its configuration, nothing above.', under('store'), [...under('store'), ...BOTTOM]),
    ...layer('net', 'Outbound network sits at the bottom, used by push, agents and auth alike.', under('net'), [
      ...under('net', 'protocol', 'config', 'observability'),
    ]),
    ...layer('observability', 'Metrics, traces and logs: every layer reports into them; they know only configuration.', under('observability'), [
      ...under('observability', 'config'),
    ]),
    ...layer('protocol', 'Wire formats only: they import nothing of Agentport but themselves.', under('protocol'), [...under('protocol')]),
    ...layer('config', 'Configuration imports nothing of Agentport but itself.', under('config'), [...under('config')]),
    ...layer('memory', 'Collections shaped for the garbage collector import nothing of Agentport but themselves.', under('memory'), [...under('memory')]),
    ...layer('client', 'The client library ships alone (agentport/client): protocol and net only.', under('client'), [
      ...under('client', 'protocol', 'net'),
    ]),
    ...layer('agent-sdk', 'What agent authors import: the agent contract and protocol types, not the engine.', under('agents/sdk'), [
      ...under('agents/sdk', 'core/agents/agent-definition.ts', 'protocol'),
    ]),
    ...layer(
      'built-in-agents',
      'A built-in agent is written like any other: the SDK, protocol, net, config, the client; core types only.',
      [BUILT_IN_AGENT],
      [BUILT_IN_AGENT, '^src/core/', ...under('agents/sdk', 'client'), ...BOTTOM],
    ),
    {
      name: 'built-in-agents-core-types-only',
      comment: 'A built-in agent may name a core type, never run core code: it runs through the SDK contract.',
      severity: 'error',
      from: { path: BUILT_IN_AGENT },
      to: { path: '^src/core/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'built-in-agents-apart',
      comment: 'Built-in agents do not import each other.',
      severity: 'error',
      from: { path: '^src/agents/([^/]+)/' },
      to: { path: '^src/agents/(?!sdk/)[^/]+/', pathNot: '^src/agents/$1/' },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'src/ ships; a devDependency is not installed where it runs.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a typo in a path is caught here as well as by tsc).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
