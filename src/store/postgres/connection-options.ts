/**
 * The startup options of the store's connections: the operator's own (`?options=-c …` in the URL)
 * and then the search_path that puts every statement in the store's schema.
 *
 * Why not simply both: pg lets every parameter of the connection string override the same field of
 * the pool's configuration, so a URL `options` replaced the store's search_path, and the store then
 * migrated and wrote into `public` instead of its schema (issue 26: the operator's lever on the
 * commit's WAL flush, `synchronous_commit = off`, could only be set on the database or the role;
 * docs/deploy.md, "Durability and speed"). Here the URL keeps its other parameters, loses
 * `options`, and the pool gets the operator's options followed by the search_path, which
 * PostgreSQL applies in order, so the store's schema wins over a search_path in the URL.
 *
 * Only the query string is read and rewritten: pg parses the rest of the URL in ways of its own
 * (a host in the query, a Unix socket path), which stay exactly as the operator wrote them.
 */
export interface ConnectionOptions {
  connectionString: string;
  options: string;
}

export function connectionOptions(connectionString: string, schema: string): ConnectionOptions {
  const searchPath = `-c search_path=${schema}`;
  const at = connectionString.indexOf('?');
  if (at < 0) return { connectionString, options: searchPath };
  // The query and the fragment as pg reads them (WHATWG URL): the fragment is not a parameter.
  const hash = connectionString.indexOf('#', at);
  const query = connectionString.slice(at + 1, hash < 0 ? undefined : hash);
  const params = new URLSearchParams(query);
  const given = params.getAll('options');
  if (given.length === 0) return { connectionString, options: searchPath };
  params.delete('options');
  const rest = params.toString();
  return {
    connectionString: connectionString.slice(0, at) + (rest ? `?${rest}` : ''),
    // pg keeps the last of repeated parameters; the operator's options go first, ours last.
    options: `${given[given.length - 1]!.trim()} ${searchPath}`.trimStart(),
  };
}
