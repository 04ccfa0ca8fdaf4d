/** OAuth clients: the registered clients; register one (a secret, if any, is shown once) and delete. */
import { useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { Problem, Status, Table, useLoad } from '../ui.js';

interface Client {
  clientId: string;
  name?: string;
  grantTypes: string[];
  redirectUris: string[];
  scope?: string;
}

const KINDS = [
  ['public', 'public (PKCE, no secret)'],
  ['confidential', 'confidential (secret)'],
  ['machine', 'machine (client credentials)'],
] as const;

export function ClientsPage() {
  const clients = useLoad(() => getJson<{ clients: Client[] }>('api/v1/clients'), []);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<string>('public');
  const [redirects, setRedirects] = useState('');
  const [scopes, setScopes] = useState('');
  const [created, setCreated] = useState<{ client: Client; clientSecret?: string }>();
  const [problem, setProblem] = useState<string>();

  const create = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    try {
      const body = { name, kind, redirectUris: redirects.split(/\s+/).filter(Boolean), scopes: scopes.split(/[\s,]+/).filter(Boolean) };
      setCreated(await sendJson<{ client: Client; clientSecret?: string }>('POST', 'api/v1/clients', body));
      setName('');
      setRedirects('');
      clients.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const remove = async (c: Client) => {
    setProblem(undefined);
    try {
      await sendJson('DELETE', `api/v1/clients/${encodeURIComponent(c.clientId)}`);
      if (created?.client.clientId === c.clientId) setCreated(undefined);
      clients.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <>
      <h1>OAuth clients</h1>
      <form class="create" onSubmit={create}>
        <h2>Register a client</h2>
        <label>
          Name (shown on the consent page)
          <input name="client-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Kind
          <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {KINDS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Redirect URIs (space-separated)
          <input name="redirect-uris" value={redirects} onInput={(e) => setRedirects(e.currentTarget.value)} />
        </label>
        <label>
          Scopes (optional)
          <input name="client-scopes" value={scopes} onInput={(e) => setScopes(e.currentTarget.value)} />
        </label>
        <button type="submit">Register client</button>
      </form>
      <Problem text={problem} />
      {created && (
        <div class="secret" role="status">
          <p>
            Client <code id="new-client-id">{created.client.clientId}</code> registered.
            {created.clientSecret ? ' Its secret, shown only now:' : ' It is public: it has no secret.'}
          </p>
          {created.clientSecret && (
            <pre>
              <code id="new-client-secret">{created.clientSecret}</code>
            </pre>
          )}
        </div>
      )}
      <Status loaded={clients}>
        {(c) => (
          <Table
            caption="Clients"
            empty="No clients registered."
            rows={c.clients}
            columns={[
              { title: 'Client ID', cell: (x) => <code>{x.clientId}</code> },
              { title: 'Name', cell: (x) => x.name ?? '' },
              { title: 'Grants', cell: (x) => x.grantTypes.join(', ') },
              { title: 'Redirect URIs', cell: (x) => x.redirectUris.join(' ') },
              {
                title: 'Actions',
                cell: (x) => (
                  <button type="button" onClick={() => remove(x)} aria-label={`Delete client ${x.clientId}`}>
                    Delete
                  </button>
                ),
              },
            ]}
          />
        )}
      </Status>
    </>
  );
}
