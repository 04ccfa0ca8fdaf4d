/** Small pieces every page uses: loading data with its error, tables, numbers. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change; `reload()` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (e: unknown) => current && setState({ error: e instanceof Error ? e.message : String(e), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

export function Problem({ text }: { text: string | undefined }) {
  return text ? (
    <p class="problem" role="alert">
      {text}
    </p>
  ) : null;
}

export function Status<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <Problem text={loaded.error} />;
  if (loaded.data === undefined) return <p class="muted">Loading…</p>;
  return <>{children(loaded.data)}</>;
}

export interface Column<R> {
  title: string;
  cell: (row: R) => ComponentChildren;
  numeric?: boolean;
  /** `nowrap` (a short column kept on one line), `breakable` (long values wrap anywhere) */
  fit?: 'nowrap' | 'breakable';
}

export function Table<R>({ caption, columns, rows, empty }: { caption: string; columns: Column<R>[]; rows: R[]; empty: string }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={[c.numeric ? 'num' : '', c.fit ?? ''].join(' ').trim() || undefined} key={c.title}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} class="muted">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td class={[c.numeric ? 'num' : '', c.fit ?? ''].join(' ').trim() || undefined} key={c.title}>
                    {c.cell(r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

export const count = (n: number) => n.toLocaleString('en');
export const ms = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${Math.round(n).toLocaleString('en')} ms`);
export const percent = (n: number) => `${(n * 100).toFixed(1)} %`;
export const when = (iso: string | number) =>
  new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
