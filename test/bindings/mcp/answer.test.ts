import { describe, expect, it } from 'vitest';
import { answerText, json, rpcError } from '../../../src/bindings/mcp/answer.js';

describe('MCP answers as values', () => {
  it('an edge refusal is a JSON-RPC error with id null, its headers kept', async () => {
    const a = await answerText(rpcError(401, -32001, 'no', { 'WWW-Authenticate': 'Bearer x' }));
    expect(a.status).toBe(401);
    expect(a.headers['www-authenticate']).toBe('Bearer x');
    expect(JSON.parse(a.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'no' } });
  });

  it('a JSON answer and an SDK response read the same way', async () => {
    expect(JSON.parse((await answerText(json(200, { ok: 1 }))).body)).toEqual({ ok: 1 });
    const web = await answerText({ kind: 'web', response: new Response('data: {}\n\n', { status: 200, headers: { 'Content-Type': 'text/event-stream' } }) });
    expect(web).toMatchObject({ status: 200, body: 'data: {}\n\n' });
    expect(web.headers['content-type']).toBe('text/event-stream');
  });
});
