/**
 * Settings (administrators): the resolved configuration as the server runs it, one row per value,
 * where each came from (flag, env, file, default), secrets redacted by the server
 * (`GET /api/v1/settings`). A filter narrows the rows by key or source.
 */
import { useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { Status, Table, useLoad } from '../ui.js';

type Scalar = string | number | boolean | null;

interface Setting {
  key: string;
  value: Scalar | Scalar[];
  source: 'flag' | 'env' | 'file' | 'default';
}

const SOURCE_NAMES: Record<Setting['source'], string> = { flag: 'command-line flag', env: 'environment (${VAR})', file: 'file', default: 'default or derived' };

const shown = (v: Setting['value']) => (Array.isArray(v) ? v.map((x) => String(x)).join(', ') || '(none)' : v === null ? '' : String(v));

export function SettingsPage() {
  const settings = useLoad(() => getJson<{ file: string | null; settings: Setting[] }>('api/v1/settings'), []);
  const [filter, setFilter] = useState('');
  const [source, setSource] = useState('');
  return (
    <>
      <h1>Settings</h1>
      <Status loaded={settings}>
        {(s) => {
          const rows = s.settings.filter((r) => r.key.toLowerCase().includes(filter.toLowerCase()) && (!source || r.source === source));
          return (
            <>
              <p>
                {s.file ? (
                  <>
                    Read from <code>{s.file}</code>
                  </>
                ) : (
                  'No configuration file: defaults, flags and the configuration given at start.'
                )}{' '}
                Secrets are shown as <code>[redacted]</code>.
              </p>
              <form class="filters" onSubmit={(e) => e.preventDefault()}>
                <label>
                  Key contains <input name="settings-key" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
                </label>
                <label>
                  Source{' '}
                  <select name="settings-source" value={source} onChange={(e) => setSource(e.currentTarget.value)}>
                    <option value="">any</option>
                    {Object.entries(SOURCE_NAMES).map(([k, name]) => (
                      <option key={k} value={k}>
                        {name}
                      </option>
                    ))}
                  </select>
                </label>
              </form>
              <Table
                caption={`${rows.length} of ${s.settings.length} values`}
                rows={rows}
                empty="No value matches."
                columns={[
                  { title: 'Key', cell: (r) => <code>{r.key}</code>, fit: 'breakable' },
                  { title: 'Value', cell: (r) => <code>{shown(r.value)}</code>, fit: 'breakable' },
                  { title: 'Source', cell: (r) => SOURCE_NAMES[r.source], fit: 'nowrap' },
                ]}
              />
            </>
          );
        }}
      </Status>
    </>
  );
}
