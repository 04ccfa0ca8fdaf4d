/**
 * The A2A operations as reached from another surface (MCP): every call is marked with it, so the
 * authorization layer applies that surface's scopes (`mcp:tools…` instead of `a2a:*`) while the
 * rest of the decision — skills, usecases, owners — stays the same.
 */
import type { A2AHandler, CallContext } from '../a2a-handler.js';

export function onSurface(handler: A2AHandler, surface: 'a2a' | 'mcp'): A2AHandler {
  const at = (ctx: CallContext): CallContext => (ctx.surface === surface ? ctx : { ...ctx, surface });
  return {
    sendMessage: (ctx, req) => handler.sendMessage(at(ctx), req),
    sendStreamingMessage: (ctx, req) => handler.sendStreamingMessage(at(ctx), req),
    getTask: (ctx, req) => handler.getTask(at(ctx), req),
    listTasks: (ctx, req) => handler.listTasks(at(ctx), req),
    cancelTask: (ctx, req) => handler.cancelTask(at(ctx), req),
    subscribeToTask: (ctx, req, lastEventId) => handler.subscribeToTask(at(ctx), req, lastEventId),
    createTaskPushNotificationConfig: (ctx, c) => handler.createTaskPushNotificationConfig(at(ctx), c),
    getTaskPushNotificationConfig: (ctx, ref) => handler.getTaskPushNotificationConfig(at(ctx), ref),
    listTaskPushNotificationConfigs: (ctx, req) => handler.listTaskPushNotificationConfigs(at(ctx), req),
    deleteTaskPushNotificationConfig: (ctx, ref) => handler.deleteTaskPushNotificationConfig(at(ctx), ref),
    getExtendedAgentCard: (ctx) => handler.getExtendedAgentCard(at(ctx)),
    agentExtensions: (agentId) => handler.agentExtensions(agentId),
    hasAgent: (agentId, caller) => handler.hasAgent(agentId, caller && { ...caller, surface }),
  };
}
