/**
 * Users: the local users who sign in (here, to OAuth clients), with their scopes; create (the
 * password is shown once) and delete; each user's consent grants, revocable.
 */
import { useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { ConsentGrants } from '../consent-grants.js';
import { Problem, Status, Table, useLoad, when } from '../ui.js';

interface User {
  username: string;
  scopes: string[];
  createdAt: string;
}

export function UsersPage({ self }: { self: string }) {
  const users = useLoad(() => getJson<{ users: User[] }>('api/v1/users'), []);
  const [username, setUsername] = useState('');
  const [scopes, setScopes] = useState('a2a:discover a2a:publish mcp:tools usage:read');
  const [created, setCreated] = useState<{ user: User; password?: string }>();
  const [problem, setProblem] = useState<string>();
  const [grantsOf, setGrantsOf] = useState<string>();

  const create = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    try {
      setCreated(await sendJson<{ user: User; password?: string }>('POST', 'api/v1/users', { username, scopes: scopes.split(/[\s,]+/).filter(Boolean) }));
      setUsername('');
      users.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const remove = async (u: User) => {
    setProblem(undefined);
    try {
      await sendJson('DELETE', `api/v1/users/${encodeURIComponent(u.username)}`);
      if (created?.user.username === u.username) setCreated(undefined);
      if (grantsOf === u.username) setGrantsOf(undefined);
      users.reload();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <>
      <h1>Users</h1>
      <form class="create" onSubmit={create}>
        <h2>Create a user</h2>
        <label>
          Username
          <input name="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
        </label>
        <label>
          Scopes (space-separated)
          <input name="user-scopes" value={scopes} onInput={(e) => setScopes(e.currentTarget.value)} />
        </label>
        <button type="submit">Create user</button>
      </form>
      <Problem text={problem} />
      {created?.password && (
        <div class="secret" role="status">
          <p>
            User <strong>{created.user.username}</strong> created. Their password, shown only now:
          </p>
          <pre>
            <code id="new-password">{created.password}</code>
          </pre>
        </div>
      )}
      <Status loaded={users}>
        {(u) => (
          <Table
            caption="Users"
            empty="No users."
            rows={u.users}
            columns={[
              { title: 'Username', cell: (x) => x.username },
              { title: 'Scopes', cell: (x) => x.scopes.join(' ') },
              { title: 'Created (UTC)', cell: (x) => when(x.createdAt) },
              {
                title: 'Actions',
                cell: (x) =>
                  x.username === self ? (
                    <span class="muted">you</span>
                  ) : (
                    <button type="button" onClick={() => remove(x)} aria-label={`Delete user ${x.username}`}>
                      Delete
                    </button>
                  ),
              },
              {
                title: 'Consent grants',
                cell: (x) => (
                  <button type="button" onClick={() => setGrantsOf(x.username)} aria-pressed={grantsOf === x.username} aria-label={`Consent grants of ${x.username}`}>
                    Grants
                  </button>
                ),
              },
            ]}
          />
        )}
      </Status>
      {grantsOf && <ConsentGrants key={grantsOf} username={grantsOf} />}
    </>
  );
}
