/**
 * A task waiting in AUTH_REQUIRED for its caller to connect an account at a remote (ADR 0035), as
 * each MCP era can show it. In every case the waiting task is canceled: the client retries the
 * call once the user has connected, and the old task would otherwise run too.
 * - 2025-11-25, client declared `elicitation: { url: {} }`: error `-32042` (client/elicitation
 *   "URL Elicitation Required Error") listing one URL-mode elicitation, the connect link.
 * - 2026-07-28, client declared URL mode: that era forbids `-32042`; the call answers the MRTR
 *   `input_required` result with one URL-mode `elicitation/create` (input-required.ts
 *   `askToConnect`); the client's retry carries the sealed state and runs the call afresh.
 * - any other client: a tool error whose text names the link (`connectToolError`).
 *
 * The connect link is the one the spec's phishing section asks for: a page of this server that
 * checks the browser is signed in as the user it was made for before it redirects to the remote's
 * authorization server, and carries no credential itself (a sealed ticket naming user and remote).
 */
import { randomUUID } from 'node:crypto';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import type { StreamResponse } from '../../../protocol/a2a/types.js';
import { errorResult } from './tool-result.js';

export interface ConnectLink {
  url: string;
  remote?: string;
  /** the agent's own words for it ("Connect your account at <host> to continue: open <url>") */
  note?: string;
}

/** The connect link an agent put in its AUTH_REQUIRED status (src/agents/sdk/remote-connection.ts), as the stream reports it. */
export function connectLinkOf(response: StreamResponse): ConnectLink | undefined {
  const status = 'task' in response ? response.task.status : 'statusUpdate' in response ? response.statusUpdate.status : undefined;
  if (status?.state !== 'TASK_STATE_AUTH_REQUIRED') return undefined;
  for (const p of status.message?.parts ?? []) {
    const d = p.data as { connectUrl?: unknown; remote?: unknown } | undefined;
    if (d && typeof d === 'object' && typeof d.connectUrl === 'string' && URL.canParse(d.connectUrl)) {
      const note = status.message?.parts.find((t) => typeof t.text === 'string' && t.text.includes(d.connectUrl as string))?.text;
      return { url: d.connectUrl, ...(typeof d.remote === 'string' ? { remote: d.remote } : {}), ...(note ? { note } : {}) };
    }
  }
  return undefined;
}

/** Whether a client's declared capabilities include URL-mode elicitation (`elicitation.url`). */
export function declaresUrlElicitation(capabilities: { elicitation?: unknown } | undefined): boolean {
  const e = capabilities?.elicitation;
  return typeof e === 'object' && e !== null && (e as { url?: unknown }).url !== undefined;
}

/** What to tell the user: the agent's sentence naming host and URL, else one of ours naming the URL. */
export function connectMessage(link: ConnectLink): string {
  return `${link.note ?? `Connect your account${link.remote ? ` at ${link.remote}` : ''} to continue: open ${link.url}`}, then call the tool again.`;
}

/** The answer for a client that cannot take URL-mode elicitation: a tool error the model can relay. */
export function connectToolError(link: ConnectLink) {
  return errorResult(connectMessage(link));
}

/** The `-32042` error for one connect link. */
export function connectElicitationRequired(link: ConnectLink): UrlElicitationRequiredError {
  const at = link.remote ? ` at ${link.remote}` : '';
  return new UrlElicitationRequiredError(
    [{ mode: 'url', elicitationId: randomUUID(), url: link.url, message: `Connect your account${at} to continue, then call the tool again.` }],
    `This tool needs your account${at} connected first.`,
  );
}
