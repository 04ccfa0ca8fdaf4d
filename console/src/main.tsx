/**
 * The console's shell: who is signed in, the navigation, and the page the hash names
 * (`#/usage`). Hash routes need nothing from the server and work under any path prefix.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { SIGNED_OUT } from './api.js';
import { AgentsPage } from './pages/agents.js';
import { AuditPage } from './pages/audit.js';
import { ClientsPage } from './pages/clients.js';
import { ConnectPage } from './pages/connect.js';
import { ConnectionsPage } from './pages/connections.js';
import { KeysPage } from './pages/keys.js';
import { OverviewPage } from './pages/overview.js';
import { SettingsPage } from './pages/settings.js';
import { TaskPage } from './pages/task.js';
import { TasksPage } from './pages/tasks.js';
import { UsagePage } from './pages/usage-page.js';
import { UsersPage } from './pages/users.js';
import { connectLinkToReturnTo } from './connect-return.js';
import { beginSignIn, finishSignIn, readSession, signOut, type Session } from './session.js';
import { Problem } from './ui.js';

type SignedIn = Extract<Session, { signedIn: true }>;

interface Route {
  path: string;
  title: string;
  adminOnly: boolean;
  /** shown only when this says so (a page for something the server may not have) */
  offered?: (s: SignedIn) => boolean;
  /** `rest`: the hash path's segments after the page's own (`#/tasks/echo/t1` → ['echo', 't1']) */
  page: (s: SignedIn, rest: string[]) => preact.JSX.Element;
}

const ROUTES: Route[] = [
  { path: '', title: 'Overview', adminOnly: false, page: (s) => <OverviewPage session={s} /> },
  { path: 'agents', title: 'Agents', adminOnly: false, page: (_s, [agentId, contextId]) => <AgentsPage agentId={agentId} contextId={contextId} /> },
  {
    path: 'tasks',
    title: 'Tasks',
    adminOnly: false,
    page: (s, [agentId, taskId]) => (agentId && taskId ? <TaskPage key={`${agentId}/${taskId}`} agentId={agentId} taskId={taskId} admin={s.admin} /> : <TasksPage admin={s.admin} />),
  },
  { path: 'usage', title: 'Usage', adminOnly: false, page: (s) => <UsagePage session={s} /> },
  { path: 'audit', title: 'Audit', adminOnly: true, page: () => <AuditPage /> },
  { path: 'connect', title: 'Connect', adminOnly: false, page: () => <ConnectPage /> },
  // Only where some agent reaches its remote as the user (auth: oauth); the server says so in the session.
  { path: 'connections', title: 'Connections', adminOnly: false, offered: (s) => s.connections === true, page: () => <ConnectionsPage /> },
  { path: 'keys', title: 'API keys', adminOnly: false, page: (s) => <KeysPage admin={s.admin} username={s.username} scopes={s.scopes} /> },
  { path: 'users', title: 'Users', adminOnly: true, page: (s) => <UsersPage self={s.username} /> },
  { path: 'clients', title: 'OAuth clients', adminOnly: true, page: () => <ClientsPage /> },
  { path: 'settings', title: 'Settings', adminOnly: true, page: () => <SettingsPage /> },
];

/** A malformed escape (`%zz`) is kept as written rather than breaking the shell. */
const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const currentPath = () => location.hash.replace(/^#\/?/, '');

function useHashPath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onHash = () => setPath(currentPath());
    window.addEventListener('hashchange', onHash);
    // Effects run after paint: a hash change between the first render and here had no listener yet
    // (seen right after sign-in under load, when a link was followed at once), so read it again.
    onHash();
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return path;
}

function SignInPage({ session, problem }: { session: Extract<Session, { signedIn: false }>; problem?: string }) {
  return (
    <main class="sign-in">
      <h1>Agentport console</h1>
      <Problem text={problem ?? session.reason} />
      {session.signIn ? (
        <button type="button" class="primary" onClick={() => beginSignIn(session.signIn!)}>
          Sign in
        </button>
      ) : (
        <p>Sign-in is not available: this server has no OAuth authorization server (auth.oauth.enabled) or does not require sign-in.</p>
      )}
    </main>
  );
}

function Shell({ session, onSignedOut }: { session: SignedIn; onSignedOut: () => void }) {
  const path = useHashPath();
  const routes = ROUTES.filter((r) => (session.admin || !r.adminOnly) && (r.offered?.(session) ?? true));
  const [head = '', ...rest] = path.split('/').map(decodeSegment);
  const route = routes.find((r) => r.path === head) ?? routes[0]!;
  useEffect(() => {
    document.title = `${route.title} · Agentport console`;
  }, [route]);
  return (
    <>
      <header class="top">
        <strong>Agentport</strong>
        <nav aria-label="Console">
          {routes.map((r) => (
            <a key={r.path} href={`#/${r.path}`} aria-current={r === route ? 'page' : undefined}>
              {r.title}
            </a>
          ))}
        </nav>
        {session.open ? (
          <span class="who">Authentication is off</span>
        ) : (
          <span class="who">
            <span id="signed-in-as">{session.username}</span>
            {session.admin ? ' (admin)' : ''}
            <button type="button" onClick={() => signOut().finally(onSignedOut)}>
              Sign out
            </button>
          </span>
        )}
      </header>
      <main>{route.page(session, rest)}</main>
    </>
  );
}

function App() {
  const [session, setSession] = useState<Session>();
  const [problem, setProblem] = useState<string>();
  const load = async () => {
    let s = await readSession();
    if (!s.signedIn && s.signIn) {
      try {
        if (await finishSignIn(s.signIn)) s = await readSession();
      } catch (e) {
        setProblem(e instanceof Error ? e.message : String(e));
      }
    }
    const connectLink = s.signedIn ? connectLinkToReturnTo() : undefined;
    if (connectLink) {
      location.replace(connectLink);
      return;
    }
    setSession(s);
  };
  useEffect(() => {
    load().catch((e: unknown) => setProblem(e instanceof Error ? e.message : String(e)));
    const onSignedOut = () => void load();
    window.addEventListener(SIGNED_OUT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT, onSignedOut);
  }, []);
  if (!session) return problem ? <Problem text={problem} /> : <p class="loading">Loading the console…</p>;
  if (!session.signedIn) return <SignInPage session={session} {...(problem ? { problem } : {})} />;
  return <Shell session={session} onSignedOut={() => void load()} />;
}

render(<App />, document.getElementById('app')!);
