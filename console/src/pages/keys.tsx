/**
 * API keys: list, create (the secret is shown once, here), revoke. An administrator manages every
 * key, for any subject; anyone else their own: keys that act as them, with scopes they hold
 * (the server refuses more, and says which).
 */
import { useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { Problem, Status, Table, useLoad, when } from '../ui.js';

interface ApiKey {
  id: string;
  subject: string;
  scopes: string[];
  usecase?: string;
  createdAt: string;
  expiresAt?: string;
  status: 'active' | 'revoked' | 'expired';
}

/** What a member's key may carry: the member's own scopes (admin aside, which a member does not hold). */
const ownKeyScopes = (scopes: readonly string[]) => scopes.filter((s) => s !== 'admin').join(' ');

export function KeysPage({ admin, username, scopes: held }: { admin: boolean; username: string; scopes: readonly string[] }) {
  const keys = useLoad(() => getJson<{ keys: ApiKey[] }>('api/v1/keys'), []);
  const [subject, setSubject] = useState('');
  const [scopes, setScopes] = useState(admin ? 'a2a:discover a2a:publish' : ownKeyScopes(held));
  const [created, setCreated] = useState<ApiKey & { key: string }>();
  const [problem, setProblem] = useState<string>();

  const create = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    try {
      // A member's keys act as the member: the server fills in the subject.
      const key = await sendJson<ApiKey & { key: string }>('POST', 'api/v1/keys', { ...(admin ? { subject } : {}), scopes: scopes.split(/[\s,]+/).filter(Boolean) });
      setCreated(key);
      setSubject('');
      keys.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const revoke = async (k: ApiKey) => {
    setProblem(undefined);
    try {
      await sendJson('DELETE', `api/v1/keys/${k.id}`);
      if (created?.id === k.id) setCreated(undefined);
      keys.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <>
      <h1>API keys</h1>
      {admin ? null : (
        <p id="own-keys-note">
          Your own keys: they act as <strong>{username}</strong>, with at most your scopes ({ownKeyScopes(held) || 'none'}).
        </p>
      )}
      <form class="create" onSubmit={create}>
        <h2>Create a key</h2>
        {admin ? (
          <label>
            Subject (who the key acts as)
            <input name="subject" required value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
          </label>
        ) : null}
        <label>
          Scopes (space-separated)
          <input name="scopes" required value={scopes} onInput={(e) => setScopes(e.currentTarget.value)} />
        </label>
        <button type="submit">Create key</button>
      </form>
      <Problem text={problem} />
      {created && (
        <div class="secret" role="status">
          <p>
            Key <code>{created.id}</code> for <strong>{created.subject}</strong>. Copy it now: it is not shown again.
          </p>
          <pre>
            <code id="new-key">{created.key}</code>
          </pre>
        </div>
      )}
      <Status loaded={keys}>
        {(k) => (
          <Table
            caption={admin ? 'Keys' : 'Your keys'}
            empty="No API keys yet."
            rows={k.keys}
            columns={[
              { title: 'ID', cell: (x) => <code>{x.id}</code> },
              { title: 'Subject', cell: (x) => x.subject },
              { title: 'Scopes', cell: (x) => x.scopes.join(' ') },
              { title: 'Created (UTC)', cell: (x) => when(x.createdAt) },
              { title: 'Status', cell: (x) => x.status },
              {
                title: 'Actions',
                cell: (x) =>
                  x.status === 'active' ? (
                    <button type="button" onClick={() => revoke(x)} aria-label={`Revoke key ${x.id}`}>
                      Revoke
                    </button>
                  ) : null,
              },
            ]}
          />
        )}
      </Status>
    </>
  );
}
