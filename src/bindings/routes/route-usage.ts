/**
 * The usage record of a call served by a plain route: its operation is the route's pattern
 * (`GET /api/v1/keys/:id`, never an id, so records group), its face the API the route belongs to.
 */
import type { IncomingMessage } from 'node:http';
import { usageOf } from '../../edge/call-usage.js';

export function noteRoute(req: IncomingMessage, method: string, pattern: string | undefined): void {
  const usage = usageOf(req);
  if (!usage) return;
  usage.operation = `${method} ${pattern ?? '(no route)'}`;
  usage.face = faceOf(pattern);
}

/** The APIs the management routes make up; the rest of `/api/v1` and `/a2a/agents|tasks` is the Novaeden API. */
const MANAGEMENT = ['/api/v1/keys', '/api/v1/usage', '/api/v1/audit', '/api/v1/quotas', '/api/v1/clients', '/api/v1/users', '/api/v1/admin'];

function faceOf(pattern: string | undefined): string {
  if (pattern === undefined) return 'routes';
  // The console's pages and session, and the OAuth server's own routes: named, so that usage rows
  // without an agent say what they are (the console's Usage page labels them by face).
  if (pattern === '/console' || pattern.startsWith('/console/')) return 'console';
  if (pattern.startsWith('/oauth/') || pattern.startsWith('/.well-known/oauth-') || pattern.startsWith('/.well-known/openid-')) return 'oauth';
  if (pattern.includes('/.well-known/') || pattern.endsWith('/card')) return 'cards';
  if (MANAGEMENT.some((p) => pattern.startsWith(p))) return 'management';
  if (pattern.startsWith('/api/v1/') || pattern.startsWith('/a2a/agents') || pattern.startsWith('/a2a/tasks')) return 'novaeden';
  return 'routes';
}
