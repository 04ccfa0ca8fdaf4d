/** An in-test A2AHandler: it records what the binding hands the core, and each test swaps in the behaviour it needs. */
import type { A2AHandler, CallContext, StreamItem } from '../../../src/core/a2a-handler.js';
import type { SendMessageRequest, StreamResponse } from '../../../src/protocol/a2a/types.js';
import { agentMessage, artifact, task } from './fixtures.js';

export const streamItems: StreamResponse[] = [
  { task: { ...task, status: { state: 'TASK_STATE_SUBMITTED' } } },
  { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } },
  { artifactUpdate: { taskId: 'task-1', contextId: 'ctx-1', artifact, lastChunk: true } },
];

export async function* fromArray(items: StreamResponse[]): AsyncGenerator<StreamItem> {
  for (const response of items) yield { response };
}

const notUsed = (): never => {
  throw new Error('not used by this test');
};

export class FakeHandler implements A2AHandler {
  calls: { op: string; ctx: CallContext; req: unknown }[] = [];
  agents = new Set(['default-agent', 'other-agent', 'ext-agent']);
  stream: (ctx: CallContext) => AsyncIterable<StreamItem> = () => fromArray(streamItems);
  getTaskImpl: () => Promise<typeof task> = async () => task;

  private record(op: string, ctx: CallContext, req: unknown): void {
    this.calls.push({ op, ctx, req });
  }
  async sendMessage(ctx: CallContext, req: SendMessageRequest) {
    this.record('sendMessage', ctx, req);
    return { message: agentMessage };
  }
  sendStreamingMessage(ctx: CallContext, req: SendMessageRequest) {
    this.record('sendStreamingMessage', ctx, req);
    return this.stream(ctx);
  }
  async getTask(ctx: CallContext, req: unknown) {
    this.record('getTask', ctx, req);
    return this.getTaskImpl();
  }
  listTasks = notUsed;
  cancelTask = notUsed;
  subscribeToTask(ctx: CallContext, req: unknown) {
    this.record('subscribeToTask', ctx, req);
    return this.stream(ctx);
  }
  createTaskPushNotificationConfig = notUsed;
  getTaskPushNotificationConfig = notUsed;
  listTaskPushNotificationConfigs = notUsed;
  async deleteTaskPushNotificationConfig(ctx: CallContext, ref: unknown) {
    this.record('deleteTaskPushNotificationConfig', ctx, ref);
  }
  getExtendedAgentCard = notUsed;
  agentExtensions(agentId: string) {
    return agentId === 'ext-agent' ? { supported: ['urn:ext:a', 'urn:ext:req'], required: ['urn:ext:req'] } : undefined;
  }
  hasAgent(agentId: string) {
    return this.agents.has(agentId);
  }
}
