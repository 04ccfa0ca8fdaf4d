/** One user's OAuth consent grants (`/api/v1/users/{username}/grants`), each revocable. */
import { useState } from 'preact/hooks';
import { getJson, sendJson } from './api.js';
import { Problem, Status, Table, useLoad, when } from './ui.js';

interface ConsentGrant {
  id: string;
  clientId: string;
  clientName?: string;
  scopes: string[];
  resources: Record<string, string[]>;
  grantedAt?: string;
  expiresAt?: string;
}

export function ConsentGrants({ username }: { username: string }) {
  const path = `api/v1/users/${encodeURIComponent(username)}/grants`;
  const grants = useLoad(() => getJson<{ grants: ConsentGrant[] }>(path), [path]);
  const [problem, setProblem] = useState<string>();
  const revoke = async (g: ConsentGrant) => {
    setProblem(undefined);
    try {
      await sendJson('DELETE', `${path}/${encodeURIComponent(g.id)}`);
      grants.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section class="grants" aria-labelledby="grants-title">
      <h2 id="grants-title">Consent grants of {username}</h2>
      <p class="muted">What each OAuth client was allowed on this user's behalf. Revoking a grant ends its tokens at once; the client asks for consent again.</p>
      <Problem text={problem} />
      <Status loaded={grants}>
        {(g) => (
          <Table
            caption={`${g.grants.length} consent grants`}
            empty="No consent grants."
            rows={g.grants}
            columns={[
              { title: 'Client', cell: (x) => (x.clientName ? `${x.clientName} (${x.clientId})` : x.clientId) },
              { title: 'Scopes', cell: (x) => x.scopes.join(' ') },
              { title: 'Resources', cell: (x) => Object.keys(x.resources).join(' ') },
              { title: 'Granted (UTC)', cell: (x) => (x.grantedAt ? when(x.grantedAt) : '') },
              { title: 'Expires (UTC)', cell: (x) => (x.expiresAt ? when(x.expiresAt) : '') },
              {
                title: 'Actions',
                cell: (x) => (
                  <button type="button" onClick={() => revoke(x)} aria-label={`Revoke the grant of ${x.clientName ?? x.clientId}`}>
                    Revoke
                  </button>
                ),
              },
            ]}
          />
        )}
      </Status>
    </section>
  );
}
