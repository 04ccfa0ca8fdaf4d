/**
 * The gRPC face under fuzz: every method of `lf.a2a.v1.A2AService` (v1.0) and `a2a.v1.A2AService`
 * (v0.3), called with bytes made from a real request of the method (serialized by the proto
 * definitions) and then mutated: bits flipped, cut, random fields appended, or plain random bytes,
 * with the A2A-Version metadata varied. An answer must never be INTERNAL or UNKNOWN, and its
 * details must carry no internal text.
 */
import * as grpc from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import fc from 'fast-check';
import { a2aServiceDefinition } from '../../src/protocol/a2a/grpc-proto.js';
import { v03ServiceDefinition } from '../../src/protocol/a2a-v03/grpc-proto.js';
import { encodeMessage } from '../../src/protocol/a2a/grpc-codec.js';
import { leaksIn, type Finding } from './oracle.js';

export interface GrpcInput {
  service: 'v1.0' | 'v0.3';
  method: string;
  version: string | undefined;
  bytes: Uint8Array;
}

/** A real request object per method; unknown methods start from an empty message. */
function seedObject(method: string, service: 'v1.0' | 'v0.3', taskId: string): object {
  const message = { messageId: 'fuzz-m', role: 'ROLE_USER', parts: [{ text: 'fuzz' }] };
  if (service === 'v1.0') {
    if (method === 'SendMessage' || method === 'SendStreamingMessage') return { message: encodeMessage(message as never) };
    if (method === 'GetTask' || method === 'CancelTask' || method === 'SubscribeToTask') return { id: taskId, historyLength: 2 };
    if (method === 'ListTasks') return { pageSize: 5 };
    if (method.includes('PushNotificationConfig')) return { taskId, id: 'cfg', config: { url: 'http://127.0.0.1:9/hook' } };
    return {};
  }
  if (method === 'SendMessage' || method === 'SendStreamingMessage') return { request: { messageId: 'fuzz-m', role: 'ROLE_USER', content: [{ text: 'fuzz' }] } };
  if (method === 'GetTask' || method === 'CancelTask' || method === 'TaskSubscription') return { name: `tasks/${taskId}` };
  return { parent: `tasks/${taskId}`, name: `tasks/${taskId}/pushNotificationConfigs/cfg` };
}

export function grpcSeeds(taskId: string): Array<{ service: 'v1.0' | 'v0.3'; method: string; bytes: Uint8Array }> {
  const out: Array<{ service: 'v1.0' | 'v0.3'; method: string; bytes: Uint8Array }> = [];
  for (const [service, def] of [
    ['v1.0', a2aServiceDefinition()],
    ['v0.3', v03ServiceDefinition()],
  ] as const) {
    for (const [method, d] of Object.entries(def)) {
      let bytes: Uint8Array;
      try {
        bytes = d.requestSerialize(seedObject(method, service, taskId));
      } catch {
        bytes = new Uint8Array();
      }
      out.push({ service, method, bytes });
    }
  }
  return out;
}

export function grpcInput(seeds: ReturnType<typeof grpcSeeds>): fc.Arbitrary<GrpcInput> {
  const edit = fc.oneof(
    fc.tuple(fc.constant('flip'), fc.nat(), fc.integer({ min: 1, max: 255 })),
    fc.tuple(fc.constant('cut'), fc.nat(), fc.constant(0)),
    fc.tuple(fc.constant('append'), fc.nat(), fc.constant(0)),
    fc.tuple(fc.constant('random'), fc.nat(), fc.constant(0)),
  );
  return fc.tuple(fc.nat(seeds.length - 1), fc.array(edit, { maxLength: 3 }), fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.constantFrom(undefined, '1.0', '0.3', '9.9', '')).map(([i, edits, random, version]) => {
    const seed = seeds[i]!;
    let b = Buffer.from(seed.bytes);
    for (const [kind, at, x] of edits) {
      if (kind === 'flip' && b.length) b[at % b.length] = b[at % b.length]! ^ x;
      else if (kind === 'cut') b = b.subarray(0, at % (b.length + 1));
      else if (kind === 'append') b = Buffer.concat([b, Buffer.from(random)]);
      else b = Buffer.from(random);
    }
    return { service: seed.service, method: seed.method, version, bytes: new Uint8Array(b) };
  });
}

const BAD = new Set([grpc.status.INTERNAL, grpc.status.UNKNOWN, grpc.status.DATA_LOSS]);

export class GrpcFuzzer {
  private readonly client: grpc.Client;
  private readonly defs: Record<'v1.0' | 'v0.3', ServiceDefinition> = { 'v1.0': a2aServiceDefinition(), 'v0.3': v03ServiceDefinition() };

  constructor(
    target: string,
    private readonly key: string,
  ) {
    this.client = new grpc.Client(target, grpc.credentials.createInsecure());
  }

  /** The findings of one call (empty when it answered as it should). */
  call(input: GrpcInput, timeoutMs: number): Promise<Finding[]> {
    const d = this.defs[input.service][input.method]!;
    const md = new grpc.Metadata();
    md.set('x-api-key', this.key);
    if (input.version !== undefined) md.set('a2a-version', input.version);
    const request = { grpc: `${input.service} ${input.method} a2a-version=${input.version ?? '-'}`, bytes: Buffer.from(input.bytes).toString('base64') };
    const check = (err: grpc.ServiceError | undefined): Finding[] => {
      if (!err) return [];
      const out: Finding[] = [];
      if (BAD.has(err.code)) out.push({ kind: 'grpc-internal', detail: grpc.status[err.code], request, status: grpc.status[err.code], excerpt: err.details });
      const leaks = leaksIn(err.details ?? '', '');
      if (leaks.length) out.push({ kind: 'leak', detail: leaks.join(', '), request, status: grpc.status[err.code], excerpt: err.details });
      return out;
    };
    const deadline = Date.now() + timeoutMs;
    const identity = (b: Uint8Array) => Buffer.from(b);
    return new Promise((resolve) => {
      if (d.responseStream) {
        const call = this.client.makeServerStreamRequest(d.path, identity, (b: Buffer) => b, input.bytes, md, { deadline });
        let done = false;
        const end = (f: Finding[]) => {
          if (done) return;
          done = true;
          resolve(f);
        };
        call.on('data', () => {
          // a stream that answers is fine; stop reading after the first event
          call.cancel();
        });
        call.on('error', (err: grpc.ServiceError) => end(err.code === grpc.status.CANCELLED || err.code === grpc.status.DEADLINE_EXCEEDED ? [] : check(err)));
        call.on('end', () => end([]));
        return;
      }
      this.client.makeUnaryRequest(
        d.path,
        identity,
        (b: Buffer) => b,
        input.bytes,
        md,
        { deadline },
        (err) => resolve(err?.code === grpc.status.DEADLINE_EXCEEDED ? [{ kind: 'no-answer', detail: 'deadline exceeded', request }] : check(err ?? undefined)),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}
