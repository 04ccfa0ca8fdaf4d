/**
 * What the MCP face builds once, at start, and every request shares (./mcp-face.ts): the core on the
 * MCP surface, the MRTR state codec, the fixture module being loaded, the legacy sessions, the
 * McpServer of each scope, the server streams of both legacy transports, the admission's deps.
 */
import type { AgentRegistry } from '../../core/agents/agent-registry.js';
import type { A2AHandler } from '../../core/a2a-handler.js';
import type { AuthorizationPolicy } from '../../core/authz/policy.js';
import { onSurface } from '../../core/stages/surface.js';
import type { EdgeLog } from '../../edge/face.js';
import type { AdmissionDeps } from './admission/admission.js';
import { hostOriginCheck } from './admission/edge-checks.js';
import type { McpFixtureModule } from './surface/fixture-module.js';
import { InFlightCalls, principalOf, serverInfo } from './surface/mcp-server-factory.js';
import type { PlainToolDeps } from './tools/plain-tool-answer.js';
import { McpScopes } from './surface/mcp-scopes.js';
import type { SkillAnnotationsLookup } from './tools/agent-tools.js';
import { createSharedTaskStateCodec, createTaskStateCodec, type TaskStateCodec } from './tools/input-required.js';
import { LegacySessions } from './transport/legacy-sessions.js';
import { serverStreams, type ServerStreams } from './transport/server-stream.js';
import { SseTransport } from './transport/sse-transport.js';

export interface McpFaceDeps {
  registry: AgentRegistry;
  handler: A2AHandler;
  /** the authenticator's challenge for a refused credential (auth/authenticator.ts) */
  challenge: AdmissionDeps['challenge'];
  log: EdgeLog;
  bodyLimit: number;
  keepAliveMs: number;
  /** the configured public base URL; with port 0 in it, the bound port is not known yet (agents' baseUrl is) */
  publicUrl: string;
  /** the host the listener binds; loopback turns on DNS-rebinding protection */
  bindHost: string;
  version: string;
  /**
   * HMAC key (>= 32 bytes) sealing MRTR `requestState`s; must be the same on every replica that
   * may receive a retry. Absent: a random key per process.
   */
  requestStateKey?: Uint8Array | string;
  /**
   * Keys shared by every replica, newest first (KeyStore.derivedSecrets): MRTR states are sealed
   * with the first and verified against each. Takes precedence over `requestStateKey`.
   */
  requestStateKeys?: () => Promise<Uint8Array[]>;
  /** the configured hints of a skill's tool (`agents[].skills[id].annotations`); absent: defaults only */
  skillAnnotations?: SkillAnnotationsLookup;
  /** `mcp.genericTools`: list_agents, send_message, get_task, cancel_task on `/mcp` (generic-tools.ts) */
  genericTools?: boolean;
  /** `mcp.fixtureModule`, being imported since start: test-only tools, resources and prompts on `/mcp` (fixture-module.ts) */
  fixtureModule?: Promise<McpFixtureModule>;
  /** `mcp.publicDiscovery`: discovery calls on `/mcp` without credentials (public-discovery.ts) */
  publicDiscovery?: boolean;
  /** the authorization policy (src/core/authz): who may use MCP, which tools and data each caller sees */
  policy?: AuthorizationPolicy;
  /** the RFC 9728 metadata URL of an MCP endpoint path (`/mcp`, `/a2a/{id}/mcp`), named in 401s */
  resourceMetadataUrl?: (path: string) => string;
}

/** Legacy sessions exist only for clients that take elicitation (legacy-sessions.ts). */
const LEGACY_SESSION_IDLE_MS = 30 * 60_000;
const LEGACY_SESSION_MAX = 1000;

/** `mcp.fixtureModule` while it loads: `loaded` settles (or fails, logged once) and `module` is then set. */
export interface LoadingFixtures {
  loaded?: Promise<void>;
  module?: McpFixtureModule;
}

export interface McpFaceState {
  d: McpFaceDeps;
  /** the core, with tool calls and task reads authorized under the mcp:tools… scopes */
  handler: A2AHandler;
  inFlight: InFlightCalls;
  stateCodec: TaskStateCodec;
  fixtures: LoadingFixtures;
  sessions: LegacySessions;
  scopes: McpScopes;
  /** the 2025-era standalone server streams */
  streams: ServerStreams;
  /** the 2024-11-05 HTTP+SSE transport */
  sse: SseTransport;
  info: ReturnType<typeof serverInfo>;
  checkHost: ReturnType<typeof hostOriginCheck>;
  admission: AdmissionDeps;
  /** what a plain tools/call needs (tools/plain-tool-answer.ts), gathered once */
  plain: PlainToolDeps;
}

export function buildMcpFaceState(d: McpFaceDeps): McpFaceState {
  const inFlight = new InFlightCalls();
  // Tool calls and task reads from MCP are authorized by the core under the mcp:tools… scopes.
  const handler = onSurface(d.handler, 'mcp');
  const stateCodec = requestStateCodec(d);
  const fixtures = loadFixtures(d);
  const sessions = new LegacySessions({ idleMs: LEGACY_SESSION_IDLE_MS, max: LEGACY_SESSION_MAX, keepAliveMs: d.keepAliveMs, maxRequestBodySize: d.bodyLimit, log: d.log });
  const scopes = new McpScopes({
    registry: d.registry,
    handler,
    ...(d.policy ? { policy: d.policy } : {}),
    inFlight,
    stateCodec,
    log: d.log,
    version: d.version,
    keepAliveMs: d.keepAliveMs,
    bodyLimit: d.bodyLimit,
    ...(d.skillAnnotations ? { skillAnnotations: d.skillAnnotations } : {}),
    ...(d.genericTools ? { genericTools: true } : {}),
    ...(fixtures.loaded ? { fixtureModule: () => fixtures.module } : {}),
    onListChanged: () => sessions.listChanged(),
  });
  const info = serverInfo(d.version);
  return {
    d,
    handler,
    inFlight,
    stateCodec,
    fixtures,
    sessions,
    scopes,
    streams: serverStreams(scopes.listBus, d.keepAliveMs),
    sse: new SseTransport(scopes.listBus, { keepAliveMs: d.keepAliveMs, max: LEGACY_SESSION_MAX, log: d.log }),
    info,
    checkHost: hostOriginCheck(d.publicUrl, d.bindHost),
    admission: { registry: d.registry, challenge: d.challenge, ...(d.policy ? { policy: d.policy } : {}), ...(d.resourceMetadataUrl ? { resourceMetadataUrl: d.resourceMetadataUrl } : {}) },
    // The plain path marks its calls as MCP's itself and calls the pipeline behind the surface stage.
    plain: { handler, pipeline: d.handler, inFlight, log: d.log, stateCodec, info },
  };
}

/** The sealer of MRTR `requestState`s: shared keys when every replica must verify them. */
function requestStateCodec(d: McpFaceDeps): TaskStateCodec {
  const subjectOf = (a: Parameters<typeof principalOf>[0]) => principalOf(a).subject;
  return d.requestStateKeys ? createSharedTaskStateCodec({ keys: d.requestStateKeys, subjectOf }) : createTaskStateCodec({ ...(d.requestStateKey ? { key: d.requestStateKey } : {}), subjectOf });
}

/** A fixture module that failed to load is logged once; `/mcp` then answers as after a failed start. */
function loadFixtures(d: McpFaceDeps): LoadingFixtures {
  const fixtures: LoadingFixtures = {};
  const loaded = d.fixtureModule?.then((m) => void (fixtures.module = m));
  loaded?.catch((err: unknown) => d.log.error({ err }, 'mcp: the fixture module (mcp.fixtureModule) could not be loaded'));
  if (loaded) fixtures.loaded = loaded;
  return fixtures;
}
