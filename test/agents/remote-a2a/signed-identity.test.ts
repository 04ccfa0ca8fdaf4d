/**
 * `agents[].remote.auth: { kind: signed-identity }`: the front Agentport reaches a trusted internal
 * remote as the caller, with a short-lived JWT it signs with its own keys. The remote here is a
 * node:http gate in front of a second Agentport: it verifies each call's JWT against the front's
 * /.well-known/jwks.json with jose (issuer, audience, typ, expiry) and forwards only verified calls.
 * The claims it saw must name the front's caller, never carry the caller's API key.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, textMessage } from '../../../src/client/index.js';
import { artifactTexts, collect, PROBE_MODULE, states } from '../../client/support.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const ALICE_KEY = 'alice-signed-identity-key-0001';
const OPS_KEY = 'ops-signed-identity-key-000001';

let upstream: TestServer;
let front: TestServer;
let gate: Server;
let gateUrl: string;
/** what the gate saw on each call past the card: the verified claims, or why it refused */
const seen: Array<{ claims?: JWTPayload; header?: Record<string, unknown>; refused?: string; rawAuthorization?: string }> = [];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Forwards to the upstream Agentport; its card is rewritten to name the gate, so every call passes here. */
async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'authorization' && k !== 'content-length') headers[k] = v;
  const r = await fetch(`${upstream.http}${req.url}`, { method: req.method!, headers, ...(body.length ? { body: new Uint8Array(body) } : {}) });
  const type = r.headers.get('content-type') ?? '';
  if (type.includes('json') && req.method === 'GET') {
    // gRPC interfaces would go around the gate: only the HTTP ones, renamed to the gate, are offered.
    const card = JSON.parse((await r.text()).replaceAll(upstream.http, gateUrl));
    if (Array.isArray(card.supportedInterfaces)) card.supportedInterfaces = card.supportedInterfaces.filter((i: { protocolBinding: string }) => i.protocolBinding !== 'GRPC');
    res.writeHead(r.status, { 'content-type': type }).end(JSON.stringify(card));
    return;
  }
  res.writeHead(r.status, { 'content-type': type });
  if (r.body) Readable.fromWeb(r.body as never).pipe(res);
  else res.end();
}

beforeAll(async () => {
  upstream = await startTestServer({ agents: [{ id: 'probe', module: PROBE_MODULE }], auth: { mode: 'none' } });
  gate = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method === 'GET' && req.url!.includes('agent-card')) return forward(req, res, body);
      const authz = req.headers.authorization ?? '';
      const jwks = createRemoteJWKSet(new URL(`${front.http}/.well-known/jwks.json`));
      try {
        const v = await jwtVerify(authz.replace(/^Bearer /, ''), jwks, { issuer: front.http, audience: gateUrl, typ: 'agentport-caller+jwt', algorithms: ['ES256'], requiredClaims: ['exp', 'iat', 'jti', 'sub'] });
        seen.push({ claims: v.payload, header: { ...v.protectedHeader }, rawAuthorization: authz });
      } catch (e) {
        seen.push({ refused: (e as Error).message, rawAuthorization: authz });
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthenticated"}');
        return;
      }
      await forward(req, res, body);
    })().catch((e) => res.writeHead(502).end(String(e)));
  });
  await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
  gateUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
  front = await startTestServer({
    agents: [
      { id: 'inside', remote: { cardUrl: `${gateUrl}/a2a/probe`, allowlist: ['127.0.0.1'], auth: { kind: 'signed-identity', ttlSeconds: 30 } } },
      { id: 'unsigned', remote: { cardUrl: `${gateUrl}/a2a/probe`, allowlist: ['127.0.0.1'] } },
    ],
    auth: {
      mode: 'required',
      apiKeys: [
        { key: ALICE_KEY, subject: 'alice', scopes: ['a2a:discover', 'a2a:publish'] },
        { key: OPS_KEY, subject: 'ops', scopes: ['admin'] },
      ],
    },
  });
});
afterAll(async () => {
  await front?.stop();
  await new Promise((r) => gate?.close(r));
  await upstream?.stop();
});

const asAlice = (agent: string) => A2AClient.connect(`${front.http}/a2a/${agent}`, { headers: { 'x-api-key': ALICE_KEY } });

describe('signed caller identity to a trusted remote', () => {
  it('calls the remote with a JWT the remote verifies at the front JWKS, naming the caller and its scopes', async () => {
    seen.length = 0;
    const c = await asAlice('inside');
    const events = await collect(c.sendStreamingMessage({ message: textMessage('hello from alice') }));
    expect(states(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(artifactTexts(events).join('')).toBe('hello from alice');

    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(s.refused).toBeUndefined();
    const { claims, rawAuthorization } = seen[0]!;
    expect(claims!.iss).toBe(front.http);
    expect(claims!.sub).toBe('alice');
    expect(claims!.aud).toBe(gateUrl);
    expect(String(claims!.scope).split(' ').sort()).toEqual(['a2a:discover', 'a2a:publish']);
    expect(claims!.exp! - claims!.iat!).toBe(30);
    expect(typeof claims!.jti).toBe('string');
    // the caller's own credential never reaches the remote
    expect(rawAuthorization).not.toContain(ALICE_KEY);
  });

  it('signs a fresh JWT per call (a new jti each time)', async () => {
    seen.length = 0;
    const c = await asAlice('inside');
    await collect(c.sendStreamingMessage({ message: textMessage('one') }));
    await collect(c.sendStreamingMessage({ message: textMessage('two') }));
    const jtis = seen.map((s) => s.claims?.jti);
    expect(jtis.length).toBe(2);
    expect(new Set(jtis).size).toBe(2);
  });

  it('a remote without auth gets no identity and refuses: the task fails with a public reason', async () => {
    seen.length = 0;
    const c = await asAlice('unsigned');
    const events = await collect(c.sendStreamingMessage({ message: textMessage('hello') }));
    expect(states(events).at(-1)).toBe('TASK_STATE_FAILED');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!.refused).toBeDefined();
    expect(seen[0]!.rawAuthorization).toBe('');
  });

  it('the usage records name whom the calls went out as (the claims the remote verified), and the unsigned agent none (issue 27)', async () => {
    seen.length = 0;
    const c = await asAlice('inside');
    expect(states(await collect(c.sendStreamingMessage({ message: textMessage('recorded') }))).at(-1)).toBe('TASK_STATE_COMPLETED');
    const { claims } = seen[0]!;
    const r = await fetch(`${front.http}/api/v1/usage?by=agent,remoteSubject,remoteIssuer&agent=inside,unsigned&operation=SendStreamingMessage`, { headers: { 'x-api-key': OPS_KEY } });
    expect(r.status).toBe(200);
    const keys = ((await r.json()) as any).groups.map((g: any) => g.key);
    // Runs after the unsigned agent's refused call: its record names no remote identity.
    expect(keys).toEqual(
      expect.arrayContaining([
        { agent: 'inside', remoteSubject: claims!.sub, remoteIssuer: claims!.iss },
        { agent: 'unsigned', remoteSubject: null, remoteIssuer: null },
      ]),
    );
    expect(keys.length).toBe(2);
  });
});
