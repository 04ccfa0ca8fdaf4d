/**
 * Connections (issue 27, ADR 0035): the signed-in user's own accounts at remotes that agents reach
 * as them (`auth: oauth`). One row per such remote: its status, the scopes granted, who the user
 * is there, when connected and last used; Connect opens the connect link (the remote's consent, in
 * a new tab, so this page stays), Disconnect deletes the tokens Agentport holds. Never a token.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, getJson, sendJson } from '../api.js';
import { Problem, Status, Table, useLoad, when } from '../ui.js';

interface Connection {
  remote: string;
  status: 'connected' | 'not-connected' | 'needs-reconnect';
  connectUrl: string;
  scopes?: string[];
  remoteSubject?: string;
  connectedAt?: string;
  lastUsedAt?: string;
  refreshable?: boolean;
}

const STATUS_TEXT: Record<Connection['status'], string> = {
  connected: 'connected',
  'not-connected': 'not connected',
  'needs-reconnect': 'needs reconnect',
};

/** The list; none when the server has no such remote (it then serves no connections API). */
async function connections(): Promise<{ connections: Connection[] }> {
  try {
    return await getJson<{ connections: Connection[] }>('api/v1/connections');
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { connections: [] };
    throw err;
  }
}

export function ConnectionsPage() {
  const list = useLoad(connections, []);
  const [problem, setProblem] = useState<string>();
  // The consent happens in another tab: coming back here shows what it did.
  useEffect(() => {
    const onFocus = () => list.reload();
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, [list.reload]);

  const disconnect = async (c: Connection) => {
    setProblem(undefined);
    try {
      await sendJson('DELETE', `api/v1/connections/${encodeURIComponent(c.remote)}`);
      list.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <>
      <h1>Connections</h1>
      <p>Agents that reach a remote as you use your own account there. Connect once; Agentport keeps the tokens sealed and refreshes them. Disconnect deletes them: the next call asks to connect again.</p>
      <Problem text={problem} />
      <button type="button" onClick={() => list.reload()}>
        Refresh
      </button>
      <Status loaded={list}>
        {(l) => (
          <Table
            caption="Your connections"
            empty="No agent on this server reaches a remote as its user."
            rows={l.connections}
            columns={[
              { title: 'Remote (agent)', cell: (x) => <code>{x.remote}</code> },
              { title: 'Status', cell: (x) => <span class={`connection-${x.status}`}>{STATUS_TEXT[x.status] ?? x.status}</span> },
              { title: 'You are there', cell: (x) => x.remoteSubject ?? '–' },
              { title: 'Scopes', cell: (x) => x.scopes?.join(' ') ?? '–' },
              { title: 'Connected (UTC)', cell: (x) => (x.connectedAt ? when(x.connectedAt) : '–') },
              { title: 'Last used (UTC)', cell: (x) => (x.lastUsedAt ? when(x.lastUsedAt) : '–') },
              {
                title: 'Actions',
                cell: (x) => (
                  <>
                    <a class="button" href={x.connectUrl} target="_blank" rel="noopener" aria-label={`${x.status === 'connected' ? 'Reconnect' : 'Connect'} to ${x.remote}`}>
                      {x.status === 'connected' ? 'Reconnect' : 'Connect'}
                    </a>
                    {x.status === 'not-connected' ? null : (
                      <button type="button" onClick={() => disconnect(x)} aria-label={`Disconnect from ${x.remote}`}>
                        Disconnect
                      </button>
                    )}
                  </>
                ),
              },
            ]}
          />
        )}
      </Status>
    </>
  );
}
