/**
 * What a test sends to and reads from an A2A server over HTTP, without the server itself: the
 * files that run the server as a child process (test/deploy/runtime.test.ts,
 * test/durability/crash.test.ts) import these from here, so collecting them does not load and
 * transform the whole of src/ (4-9 s of a `system` worker each on a 2-core machine, issue 26).
 * test/support/server.ts re-exports both.
 */

/** Reads an SSE response into events ({id, data}) until the stream closes. */
export async function readSse(res: Response): Promise<Array<{ id?: string; event?: string; data: any }>> {
  const text = await res.text();
  const out: Array<{ id?: string; event?: string; data: any }> = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((l) => l && !l.startsWith(':'));
    if (!lines.length) continue;
    const ev: { id?: string; event?: string; data: any } = { data: undefined };
    const data: string[] = [];
    for (const l of lines) {
      if (l.startsWith('id: ')) ev.id = l.slice(4);
      else if (l.startsWith('event: ')) ev.event = l.slice(7);
      else if (l.startsWith('data: ')) data.push(l.slice(6));
    }
    if (!data.length) continue;
    ev.data = JSON.parse(data.join('\n'));
    out.push(ev);
  }
  return out;
}

/** A user message with a fresh id, as the A2A v1.0 bindings take it. */
export const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});
