import type { MessageTypeDefinition } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { a2aPackageDefinition } from '../../../src/protocol/a2a/grpc-proto.js';
import { A2AError } from '../../../src/protocol/a2a/errors.js';
import * as codec from '../../../src/protocol/a2a/grpc-codec.js';
import type { JsonValue, Part, StreamResponse, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../../../src/protocol/a2a/types.js';
import { agentCard, agentMessage, artifact, nestedMetadata, pushConfig, task, userMessage } from './fixtures.js';

/** Through real protobuf bytes: proto-loader serialize, then deserialize, as grpc-js does on each side. */
function overTheWire<W>(typeName: string, obj: W): W {
  const type = a2aPackageDefinition()[typeName] as MessageTypeDefinition<object, object>;
  return type.deserialize(type.serialize(obj as object)) as W;
}

function roundTrip<M, W>(typeName: string, model: M, encode: (m: M) => W, decode: (w: W) => M): M {
  return decode(overTheWire(`lf.a2a.v1.${typeName}`, encode(model)));
}

function invalidParamsOf(fn: () => unknown): { message: string; fields: string[] } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(A2AError);
    const e = err as A2AError;
    expect(e.kind).toBe('InvalidParams');
    return { message: e.message, fields: (e.fieldViolations ?? []).map((v) => v.field) };
  }
  throw new Error('expected InvalidParams');
}

describe('gRPC codec: data objects round-trip through protobuf bytes', () => {
  it('Message with every part kind, nested metadata and list fields', () => {
    expect(
      roundTrip(
        'Message',
        userMessage,
        (m) => codec.encodeMessage(m),
        (w) => codec.decodeMessage(w),
      ),
    ).toStrictEqual(userMessage);
  });

  it('Artifact', () => {
    expect(
      roundTrip(
        'Artifact',
        artifact,
        (a) => codec.encodeArtifact(a),
        (w) => codec.decodeArtifact(w),
      ),
    ).toStrictEqual(artifact);
  });

  it('Task with status message, timestamp, artifacts and history', () => {
    expect(
      roundTrip(
        'Task',
        task,
        (t) => codec.encodeTask(t),
        (w) => codec.decodeTask(w),
      ),
    ).toStrictEqual(task);
  });

  it('Task with only required fields leaves every optional field absent', () => {
    const bare: Task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } };
    expect(
      roundTrip(
        'Task',
        bare,
        (t) => codec.encodeTask(t),
        (w) => codec.decodeTask(w),
      ),
    ).toStrictEqual(bare);
  });

  it('TaskStatusUpdateEvent and TaskArtifactUpdateEvent', () => {
    const status: TaskStatusUpdateEvent = { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' }, metadata: { a: 1 } };
    expect(
      roundTrip(
        'TaskStatusUpdateEvent',
        status,
        (e) => codec.encodeTaskStatusUpdateEvent(e),
        (w) => codec.decodeTaskStatusUpdateEvent(w),
      ),
    ).toStrictEqual(status);
    const art: TaskArtifactUpdateEvent = { taskId: 'task-1', contextId: 'ctx-1', artifact, append: true, lastChunk: true, metadata: {} };
    expect(
      roundTrip(
        'TaskArtifactUpdateEvent',
        art,
        (e) => codec.encodeTaskArtifactUpdateEvent(e),
        (w) => codec.decodeTaskArtifactUpdateEvent(w),
      ),
    ).toStrictEqual(art);
  });

  it.each<[string, StreamResponse]>([
    ['task', { task }],
    ['message', { message: agentMessage }],
    ['statusUpdate', { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } }],
    ['artifactUpdate', { artifactUpdate: { taskId: 'task-1', contextId: 'ctx-1', artifact } }],
  ])('StreamResponse oneof payload %s', (_, response) => {
    const decoded = roundTrip('StreamResponse', response, codec.encodeStreamResponse, codec.decodeStreamResponse);
    expect(decoded).toStrictEqual(response);
  });

  it('SendMessageResponse oneof payload task and message', () => {
    expect(roundTrip('SendMessageResponse', { task }, codec.encodeSendMessageResponse, codec.decodeSendMessageResponse)).toStrictEqual({ task });
    const msg = { message: agentMessage };
    expect(roundTrip('SendMessageResponse', msg, codec.encodeSendMessageResponse, codec.decodeSendMessageResponse)).toStrictEqual(msg);
  });

  it('TaskPushNotificationConfig', () => {
    expect(roundTrip('TaskPushNotificationConfig', pushConfig, codec.encodeTaskPushNotificationConfig, (w) => codec.decodeTaskPushNotificationConfig(w))).toStrictEqual(pushConfig);
  });

  it('AgentCard with every security scheme, every OAuth flow, requirement maps, signatures and presence of optional fields', () => {
    expect(roundTrip('AgentCard', agentCard, codec.encodeAgentCard, codec.decodeAgentCard)).toStrictEqual(agentCard);
  });

  it('decoded objects carry no proto-loader oneof discriminators', () => {
    const wire = overTheWire('lf.a2a.v1.StreamResponse', codec.encodeStreamResponse({ task }));
    expect(wire.payload).toBe('task');
    const json = JSON.stringify(codec.decodeStreamResponse(wire));
    expect(json).not.toMatch(/"(payload|content|kind|scheme|flow|_\w+)":/);
  });
});

describe('gRPC codec: requests and list responses round-trip through protobuf bytes', () => {
  it('SendMessageRequest with configuration and push config', () => {
    const req = {
      tenant: 'agent-a',
      message: userMessage,
      configuration: {
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: { url: 'https://hooks.example.com', token: 't' },
        historyLength: 0,
        returnImmediately: true,
      },
      metadata: nestedMetadata,
    };
    expect(roundTrip('SendMessageRequest', req, codec.encodeSendMessageRequest, codec.decodeSendMessageRequest)).toStrictEqual(req);
  });

  it('GetTaskRequest keeps optional historyLength presence: unset stays unset, 0 stays 0', () => {
    const unset = roundTrip('GetTaskRequest', { id: 't' }, codec.encodeGetTaskRequest, codec.decodeGetTaskRequest);
    expect(unset).toStrictEqual({ id: 't' });
    expect('historyLength' in unset).toBe(false);
    const zero = roundTrip('GetTaskRequest', { id: 't', historyLength: 0 }, codec.encodeGetTaskRequest, codec.decodeGetTaskRequest);
    expect(zero).toStrictEqual({ id: 't', historyLength: 0 });
  });

  it('ListTasksRequest with every filter, including optional false/0 values and a timestamp', () => {
    const req = {
      tenant: 'agent-a',
      contextId: 'ctx-1',
      status: 'TASK_STATE_WORKING' as const,
      pageSize: 0,
      pageToken: 'next',
      historyLength: 3,
      statusTimestampAfter: '2026-01-01T00:00:00.000Z',
      includeArtifacts: false,
    };
    expect(roundTrip('ListTasksRequest', req, codec.encodeListTasksRequest, codec.decodeListTasksRequest)).toStrictEqual(req);
    expect(roundTrip('ListTasksRequest', {}, codec.encodeListTasksRequest, codec.decodeListTasksRequest)).toStrictEqual({});
  });

  it('ListTasksResponse keeps its REQUIRED fields even when they hold defaults', () => {
    const empty = { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
    expect(roundTrip('ListTasksResponse', empty, codec.encodeListTasksResponse, codec.decodeListTasksResponse)).toStrictEqual(empty);
    const full = { tasks: [task], nextPageToken: 'p2', pageSize: 50, totalSize: 51 };
    expect(roundTrip('ListTasksResponse', full, codec.encodeListTasksResponse, codec.decodeListTasksResponse)).toStrictEqual(full);
  });

  it('CancelTaskRequest and SubscribeToTaskRequest', () => {
    const cancel = { tenant: 'a', id: 't', metadata: { why: 'done' } };
    expect(roundTrip('CancelTaskRequest', cancel, codec.encodeCancelTaskRequest, codec.decodeCancelTaskRequest)).toStrictEqual(cancel);
    const sub = { id: 't' };
    expect(roundTrip('SubscribeToTaskRequest', sub, codec.encodeSubscribeToTaskRequest, codec.decodeSubscribeToTaskRequest)).toStrictEqual(sub);
  });

  it('Get/DeleteTaskPushNotificationConfigRequest', () => {
    const ref = { tenant: 'a', taskId: 't', id: 'cfg' };
    expect(roundTrip('GetTaskPushNotificationConfigRequest', ref, codec.encodeTaskPushConfigRef, codec.decodeTaskPushConfigRef)).toStrictEqual(ref);
    expect(roundTrip('DeleteTaskPushNotificationConfigRequest', ref, codec.encodeTaskPushConfigRef, codec.decodeTaskPushConfigRef)).toStrictEqual(ref);
  });

  it('ListTaskPushNotificationConfigsRequest (tenant is field 4) and its response', () => {
    const req = { tenant: 'a', taskId: 't', pageSize: 10, pageToken: 'x' };
    expect(roundTrip('ListTaskPushNotificationConfigsRequest', req, codec.encodeListTaskPushNotificationConfigsRequest, codec.decodeListTaskPushNotificationConfigsRequest)).toStrictEqual(req);
    const res = { configs: [pushConfig], nextPageToken: '' };
    expect(roundTrip('ListTaskPushNotificationConfigsResponse', res, codec.encodeListTaskPushNotificationConfigsResponse, codec.decodeListTaskPushNotificationConfigsResponse)).toStrictEqual(res);
  });

  it('GetExtendedAgentCardRequest', () => {
    expect(codec.decodeGetExtendedAgentCardRequest(overTheWire('lf.a2a.v1.GetExtendedAgentCardRequest', { tenant: 'a' }))).toStrictEqual({ tenant: 'a' });
    expect(codec.decodeGetExtendedAgentCardRequest(overTheWire('lf.a2a.v1.GetExtendedAgentCardRequest', {}))).toStrictEqual({});
  });

  it('CreateTaskPushNotificationConfig request is the config itself', () => {
    const decoded = codec.decodeCreateTaskPushNotificationConfigRequest(overTheWire('lf.a2a.v1.TaskPushNotificationConfig', codec.encodeTaskPushNotificationConfig(pushConfig)));
    expect(decoded).toStrictEqual(pushConfig);
  });
});

describe('gRPC codec: proto3 defaults', () => {
  it('treats empty strings and false on non-optional fields as unset', () => {
    const wire = { tenant: '', id: 't', metadata: undefined };
    expect(codec.decodeCancelTaskRequest(wire)).toStrictEqual({ id: 't' });
    const event = codec.decodeTaskArtifactUpdateEvent({ taskId: 't', contextId: 'c', artifact: codec.encodeArtifact(artifact), append: false, lastChunk: false });
    expect(event).toStrictEqual({ taskId: 't', contextId: 'c', artifact });
  });

  it('keeps an explicitly empty Struct as {} but an absent one absent', () => {
    expect(codec.decodeCancelTaskRequest({ id: 't', metadata: {} })).toStrictEqual({ id: 't', metadata: {} });
    expect(codec.decodeCancelTaskRequest({ id: 't' })).toStrictEqual({ id: 't' });
  });

  it('ListTasksRequest status UNSPECIFIED (or its number 0) means no filter; a known number decodes to its name', () => {
    expect(codec.decodeListTasksRequest({ status: 'TASK_STATE_UNSPECIFIED' })).toStrictEqual({});
    expect(codec.decodeListTasksRequest({ status: 0 })).toStrictEqual({});
    expect(codec.decodeListTasksRequest({ status: 5 })).toStrictEqual({ status: 'TASK_STATE_CANCELED' });
  });
});

describe('gRPC codec: google.protobuf.Struct / Value', () => {
  it.each<[string, JsonValue]>([
    ['null', null],
    ['string', 'x'],
    ['zero', 0],
    ['negative float', -1.5e-7],
    ['true', true],
    ['false', false],
    ['empty list', []],
    ['mixed list', [1, 'a', null, [true], { b: {} }]],
    ['empty object', {}],
    ['nested object', nestedMetadata],
  ])('%s survives Value encoding through protobuf bytes', (_, value) => {
    const wire = overTheWire('google.protobuf.Value', codec.encodeValue(value, 'v'));
    expect(codec.decodeValue(wire, 'v')).toStrictEqual(value);
  });

  it('encodes JSON to Struct fields with one kind per Value', () => {
    expect(codec.encodeStruct({ a: 1, b: null, c: ['x'] }, 'm')).toStrictEqual({
      fields: {
        a: { numberValue: 1 },
        b: { nullValue: 'NULL_VALUE' },
        c: { listValue: { values: [{ stringValue: 'x' }] } },
      },
    });
  });

  it('decodes a Value without any kind as null, as ProtoJSON prints it', () => {
    expect(codec.decodeValue({}, 'v')).toBeNull();
  });

  it('refuses Struct nesting deeper than the limit', () => {
    let deep: JsonValue = 'bottom';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const wire = codec.encodeValue(deep, 'v');
    expect(invalidParamsOf(() => codec.decodeValue(wire, 'metadata')).message).toMatch(/nesting/);
  });

  it('refuses NaN on input and output', () => {
    expect(invalidParamsOf(() => codec.decodeValue({ numberValue: Number.NaN }, 'v')).fields).toEqual(['v']);
    expect(() => codec.encodeValue(Number.POSITIVE_INFINITY, 'v')).toThrow(TypeError);
  });
});

describe('gRPC codec: google.protobuf.Timestamp', () => {
  it('renders RFC 3339 in UTC with milliseconds, truncating sub-millisecond nanos', () => {
    expect(codec.decodeTimestamp({ seconds: 1767225600, nanos: 123_456_789 }, 't')).toBe('2026-01-01T00:00:00.123Z');
    expect(codec.decodeTimestamp({}, 't')).toBe('1970-01-01T00:00:00.000Z');
  });

  it('parses offsets, lowercase separators and nanosecond fractions', () => {
    expect(codec.encodeTimestamp('2026-01-01T01:30:00+01:30', 't')).toStrictEqual({ seconds: 1767225600, nanos: 0 });
    expect(codec.encodeTimestamp('2026-01-01t00:00:00.000000001z', 't')).toStrictEqual({ seconds: 1767225600, nanos: 1 });
    expect(codec.encodeTimestamp('0001-01-01T00:00:00Z', 't')).toStrictEqual({ seconds: -62135596800, nanos: 0 });
  });

  it('round-trips millisecond timestamps through protobuf bytes', () => {
    const ts = '1999-12-31T23:59:59.999Z';
    expect(codec.decodeTimestamp(overTheWire('google.protobuf.Timestamp', codec.encodeTimestamp(ts, 't')), 't')).toBe(ts);
  });

  it.each(['2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00', '2026-01-01T24:00:00Z', 'yesterday'])('rejects %s', (bad) => {
    expect(() => codec.encodeTimestamp(bad, 't')).toThrow(TypeError);
  });

  it('rejects out-of-range seconds and nanos from a peer', () => {
    expect(invalidParamsOf(() => codec.decodeTimestamp({ seconds: 253402300800 }, 'statusTimestampAfter')).fields).toEqual(['statusTimestampAfter']);
    expect(invalidParamsOf(() => codec.decodeTimestamp({ seconds: 0, nanos: 1_000_000_000 }, 'x')).fields).toEqual(['x']);
  });
});

describe('gRPC codec: bytes', () => {
  it('round-trips every byte value as standard base64', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('base64');
    const part = roundTrip<Part, codec.WirePart>(
      'Part',
      { raw: all },
      (p) => codec.encodePart(p),
      (w) => codec.decodePart(w),
    );
    expect(part).toStrictEqual({ raw: all });
  });

  it('accepts URL-safe and unpadded base64 on encode', () => {
    const wire = codec.encodePart({ raw: '-_8' });
    expect(Buffer.from(wire.raw as Uint8Array)).toStrictEqual(Buffer.from([0xfb, 0xff]));
    expect(() => codec.encodePart({ raw: 'not base64!' })).toThrow(TypeError);
  });
});

describe('gRPC codec: request validation', () => {
  it('SendMessageRequest without message names the field', () => {
    expect(invalidParamsOf(() => codec.decodeSendMessageRequest({ tenant: 'a' })).fields).toEqual(['message']);
  });

  it('Message without messageId, role or parts names each field', () => {
    const parts = [{ text: 'x' }];
    expect(invalidParamsOf(() => codec.decodeSendMessageRequest({ message: { role: 'ROLE_USER', parts } })).fields).toEqual(['message.messageId']);
    expect(invalidParamsOf(() => codec.decodeSendMessageRequest({ message: { messageId: 'm', parts } })).fields).toEqual(['message.role']);
    expect(invalidParamsOf(() => codec.decodeSendMessageRequest({ message: { messageId: 'm', role: 'ROLE_UNSPECIFIED', parts } })).fields).toEqual(['message.role']);
    expect(invalidParamsOf(() => codec.decodeSendMessageRequest({ message: { messageId: 'm', role: 'ROLE_USER', parts: [] } })).fields).toEqual(['message.parts']);
  });

  it('a Part with no content member is invalid', () => {
    const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'ok' }, { filename: 'f' }] };
    expect(invalidParamsOf(() => codec.decodeSendMessageRequest({ message })).fields).toEqual(['message.parts[1]']);
  });

  it('requests without their id, taskId or url name the field', () => {
    expect(invalidParamsOf(() => codec.decodeGetTaskRequest({})).fields).toEqual(['id']);
    expect(invalidParamsOf(() => codec.decodeCancelTaskRequest({ tenant: 'a' })).fields).toEqual(['id']);
    expect(invalidParamsOf(() => codec.decodeSubscribeToTaskRequest({ id: '' })).fields).toEqual(['id']);
    expect(invalidParamsOf(() => codec.decodeTaskPushConfigRef({ taskId: 't' })).fields).toEqual(['id']);
    expect(invalidParamsOf(() => codec.decodeListTaskPushNotificationConfigsRequest({})).fields).toEqual(['taskId']);
    expect(invalidParamsOf(() => codec.decodeCreateTaskPushNotificationConfigRequest({ url: 'https://x' })).fields).toEqual(['taskId']);
    expect(invalidParamsOf(() => codec.decodeCreateTaskPushNotificationConfigRequest({ taskId: 't' })).fields).toEqual(['config.url']);
  });

  it('negative historyLength and unknown enum numbers are invalid', () => {
    expect(invalidParamsOf(() => codec.decodeGetTaskRequest({ id: 't', historyLength: -1 })).fields).toEqual(['historyLength']);
    expect(invalidParamsOf(() => codec.decodeListTasksRequest({ status: 42 })).fields).toEqual(['status']);
  });
});
