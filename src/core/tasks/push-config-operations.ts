/**
 * The four push notification config operations (spec §3.1.7–3.1.10), capability-gated and
 * scoped like every task lookup. Deliveries themselves are the push worker's (src/core/push).
 */
import { A2AError, invalidParams } from '../../protocol/a2a/errors.js';
import type { ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, TaskPushConfigRef, TaskPushNotificationConfig } from '../../protocol/a2a/types.js';
import type { Store } from '../../store/store.js';
import type { CallContext } from '../a2a-handler.js';
import { uuidv7 as randomUUID } from '../ids/uuid-v7.js';
import { pushBodyVersionOfCall, tagForStorage, untagged } from '../push/push-body-version.js';
import type { PushTarget } from '../task-state/live-task.js';
import type { TaskDirectory } from '../task-state/task-directory.js';
import { withoutKey } from '../execution/without-key.js';

export class PushConfigOperations {
  constructor(
    private readonly dir: TaskDirectory,
    private readonly store: Store,
    private readonly checkWebhook: (url: string) => Promise<void>,
    /** after a config was added or removed: other replicas running the task must reload its configs */
    private readonly onChanged: (taskId: string) => void = () => {},
  ) {}

  async create(ctx: CallContext, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    const agent = this.dir.agent(ctx);
    if (!agent.pushNotifications) throw new A2AError('PushNotificationNotSupported');
    if (!config.taskId) throw invalidParams('taskId', 'is required');
    // Looked up without loading a working copy: a copy kept here for a task running on another
    // replica would go stale.
    const live = this.dir.live.get(config.taskId);
    const visible = live ? live.owner === ctx.principal.subject && live.agentId === ctx.agentId : (await this.dir.visibleStored(ctx, config.taskId)) !== undefined;
    if (!visible) throw new A2AError('TaskNotFound', `Task ${config.taskId} was not found`);
    await this.checkWebhook(config.url);
    const target = withoutKey({ ...config, id: config.id ?? randomUUID(), taskId: config.taskId }, 'tenant') as PushTarget;
    await this.store.putPushConfig({
      agentId: ctx.agentId,
      owner: ctx.principal.subject,
      taskId: config.taskId,
      config: tagForStorage(target, pushBodyVersionOfCall(ctx)),
      createdAt: Date.now(),
    });
    this.dir.live.get(config.taskId)?.pushTargets.set(target.id, target);
    this.onChanged(config.taskId);
    return target;
  }

  async get(ctx: CallContext, ref: TaskPushConfigRef): Promise<TaskPushNotificationConfig> {
    const agent = this.dir.agent(ctx);
    if (!agent.pushNotifications) throw new A2AError('PushNotificationNotSupported');
    await this.dir.visibleTask(ctx, ref.taskId);
    const c = await this.store.getPushConfig(ref.taskId, ref.id);
    if (!c) throw new A2AError('TaskNotFound', `Push notification config ${ref.id} was not found for task ${ref.taskId}`);
    return untagged(c.config);
  }

  async list(ctx: CallContext, req: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    const agent = this.dir.agent(ctx);
    if (!agent.pushNotifications) throw new A2AError('PushNotificationNotSupported');
    await this.dir.visibleTask(ctx, req.taskId);
    const all = (await this.store.listPushConfigs(req.taskId)).map((c) => untagged(c.config));
    const size = req.pageSize ?? 100;
    let start = 0;
    if (req.pageToken) {
      start = Number.parseInt(Buffer.from(req.pageToken, 'base64url').toString('utf8'), 10);
      if (!Number.isSafeInteger(start) || start < 0) throw invalidParams('pageToken', 'not a page token returned by this server');
    }
    const configs = all.slice(start, start + size);
    const next = start + size < all.length ? Buffer.from(String(start + size)).toString('base64url') : '';
    return { configs, nextPageToken: next };
  }

  async delete(ctx: CallContext, ref: TaskPushConfigRef): Promise<void> {
    const agent = this.dir.agent(ctx);
    if (!agent.pushNotifications) throw new A2AError('PushNotificationNotSupported');
    await this.dir.visibleTask(ctx, ref.taskId);
    await this.store.deletePushConfig(ref.taskId, ref.id);
    this.dir.live.get(ref.taskId)?.pushTargets.delete(ref.id);
    this.onChanged(ref.taskId);
  }
}
