/**
 * `GET /api/v1/usage` from the command line: the request (credentials as the other client
 * commands take them) and the answer's errors turned into the CLI's exit codes.
 */
import { EXIT } from '../a2a/exit-codes.js';

export interface UsageCredentials {
  apiKey?: string;
  token?: string;
}

/** A refusal or failure, with the exit code the command ends with. */
export class UsageApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

export interface UsageApiAnswer {
  contentType: string;
  body: string;
}

function errorMessage(text: string): string | undefined {
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

export async function fetchUsage(base: string, params: URLSearchParams, creds: UsageCredentials, timeoutMs: number): Promise<UsageApiAnswer> {
  const url = `${base}/api/v1/usage?${params}`;
  const headers: Record<string, string> = {};
  if (creds.token) headers.authorization = `Bearer ${creds.token}`;
  else if (creds.apiKey) headers['x-api-key'] = creds.apiKey;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    throw new UsageApiError(`cannot reach ${base}: ${cause}; is the server running (agentport serve)?`, EXIT.unreachable);
  }
  const body = await res.text();
  if (res.ok) return { contentType: res.headers.get('content-type') ?? '', body };
  const said = errorMessage(body) ?? `HTTP ${res.status}`;
  switch (res.status) {
    case 400:
      throw new UsageApiError(said, EXIT.usage);
    case 401:
      throw new UsageApiError(`${said} (pass --api-key or --token: a credential with usage:read, or admin)`, EXIT.auth);
    case 403:
      throw new UsageApiError(`${said} (usage:read reads your own usage; admin reads everyone's)`, EXIT.auth);
    case 404:
      throw new UsageApiError(`${base} does not serve /api/v1/usage (usage records are off there, or it is not an Agentport server)`, EXIT.agentError);
    default:
      throw new UsageApiError(`the server answered ${res.status}: ${said}`, EXIT.agentError);
  }
}
