/**
 * A task waiting in AUTH_REQUIRED for its caller to connect an account at a remote (ADR 0035) as
 * MCP's URL-mode elicitation (2025-11-25, client/elicitation "URL Elicitation Required Error"):
 * a client that declared `elicitation: { url: {} }` gets error `-32042` listing one URL-mode
 * elicitation, the connect link, instead of a tool result. The spec has the client open the URL
 * (after the user's consent) and retry the original request; so the waiting task is canceled
 * (the retry is a new call, and the old task would otherwise run too once connected).
 *
 * The connect link is the one the spec's phishing section asks for: a page of this server that
 * checks the browser is signed in as the user it was made for before it redirects to the remote's
 * authorization server, and carries no credential itself (a sealed ticket naming user and remote).
 */
import { randomUUID } from 'node:crypto';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import type { StreamResponse } from '../../../protocol/a2a/types.js';

/** The connect link an agent put in its AUTH_REQUIRED status (src/agents/sdk/remote-connection.ts), as the stream reports it. */
export function connectLinkOf(response: StreamResponse): { url: string; remote?: string } | undefined {
  const status = 'task' in response ? response.task.status : 'statusUpdate' in response ? response.statusUpdate.status : undefined;
  if (status?.state !== 'TASK_STATE_AUTH_REQUIRED') return undefined;
  for (const p of status.message?.parts ?? []) {
    const d = p.data as { connectUrl?: unknown; remote?: unknown } | undefined;
    if (d && typeof d === 'object' && typeof d.connectUrl === 'string' && URL.canParse(d.connectUrl)) {
      return { url: d.connectUrl, ...(typeof d.remote === 'string' ? { remote: d.remote } : {}) };
    }
  }
  return undefined;
}

/** Whether a client's declared capabilities include URL-mode elicitation (`elicitation.url`). */
export function declaresUrlElicitation(capabilities: { elicitation?: unknown } | undefined): boolean {
  const e = capabilities?.elicitation;
  return typeof e === 'object' && e !== null && (e as { url?: unknown }).url !== undefined;
}

/** The `-32042` error for one connect link. */
export function connectElicitationRequired(link: { url: string; remote?: string }): UrlElicitationRequiredError {
  const at = link.remote ? ` at ${link.remote}` : '';
  return new UrlElicitationRequiredError(
    [{ mode: 'url', elicitationId: randomUUID(), url: link.url, message: `Connect your account${at} to continue, then call the tool again.` }],
    `This tool needs your account${at} connected first.`,
  );
}
