/**
 * The logger factory: per-module levels, the test tee's copy below them, and redaction by key
 * and by shape on every line, whichever logger wrote it.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { configSecrets, createServerLoggers, SecretScrubber } from '../../../src/observability/logging/index.js';
import { configErrorOf, problemLines, tempDir } from '../../config/helpers.js';
import { captureLog } from './capture.js';

const API_KEY = `ap_0123456789abcdef_${'S'.repeat(43)}`;

describe('per-module log levels', () => {
  it('each module logs at its own level, the rest at server.logLevel', () => {
    const out = captureLog();
    const loggers = createServerLoggers({ level: 'info', logging: { levels: { push: 'debug', oauth: 'warn' } }, destination: out });
    loggers.root.debug('root debug');
    loggers.root.info('root info');
    loggers.module('push').debug('push debug');
    loggers.module('oauth').info('oauth info');
    loggers.module('oauth').warn('oauth warn');
    loggers.module('bus').debug('bus debug');
    loggers.module('bus').info('bus info');
    expect(out.records().map((r) => [r.module ?? 'root', r.msg])).toEqual([
      ['root', 'root info'],
      ['push', 'push debug'],
      ['oauth', 'oauth warn'],
      ['bus', 'bus info'],
    ]);
  });

  it('the access logger writes info lines whatever server.logLevel is, unless its own level says otherwise', () => {
    const out = captureLog();
    createServerLoggers({ level: 'error', logging: { levels: {} }, destination: out })
      .module('access')
      .info('request');
    const quiet = captureLog();
    createServerLoggers({ level: 'error', logging: { levels: { access: 'warn' } }, destination: quiet })
      .module('access')
      .info('request');
    expect(out.records().map((r) => r.msg)).toEqual(['request']);
    expect(quiet.lines).toEqual([]);
  });

  it('reads logging.levels from the configuration and refuses unknown levels and modules', () => {
    const parse = (input: unknown) => parseConfig(input, { cwd: tempDir(), env: {} });
    expect(parse({ logging: { levels: { push: 'debug' } } }).logging).toEqual({ accessLog: false, levels: { push: 'debug' } });
    expect(parse({}).logging).toEqual({ accessLog: false, levels: {} });
    expect(problemLines(configErrorOf(() => parse({ logging: { levels: { push: 'loud' } } })))).toEqual(['logging.levels.push: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent" (got "loud")']);
    const unknown = problemLines(configErrorOf(() => parse({ logging: { levels: { pushh: 'debug' } } })));
    expect(unknown).toEqual(['logging.levels.pushh: unknown key (did you mean "push"?)']);
  });

  it('the test tee copies every line from its own level while stdout keeps to the configured ones', () => {
    const out = captureLog();
    const teeLines: string[] = [];
    const loggers = createServerLoggers({ level: 'warn', logging: { levels: { push: 'debug' } }, destination: out, tee: { level: 'trace', write: (l) => void teeLines.push(l) } });
    loggers.root.info('root info');
    loggers.module('push').trace('push trace');
    loggers.module('push').debug(`push debug ${API_KEY}`);
    loggers.module('bus').warn('bus warn');
    expect(out.records().map((r) => r.msg)).toEqual(['push debug ap_0123456789abcdef_[redacted]', 'bus warn']);
    expect(teeLines.map((l) => JSON.parse(l).msg)).toEqual(['root info', 'push trace', 'push debug ap_0123456789abcdef_[redacted]', 'bus warn']);
  });
});

describe('redaction', () => {
  const redisUrl = 'redis://default:r3dis-Pa55word@cache.internal:6379/0';
  const pgUrl = 'postgres://app:pg-Pa55word%21@db.internal:5432/agentport';
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl';

  it('scrubs secret shapes anywhere in a text', () => {
    const s = new SecretScrubber();
    expect(s.scrub(`key ${API_KEY} used`)).toBe('key ap_0123456789abcdef_[redacted] used');
    expect(s.scrub('Authorization: Bearer abcdef123456.xyz')).toBe('Authorization: Bearer [redacted]');
    expect(s.scrub('basic Zm9vOmJhcg==')).toBe('basic [redacted]');
    expect(s.scrub(`connect ECONNREFUSED ${redisUrl}`)).toBe('connect ECONNREFUSED redis://default:[redacted]@cache.internal:6379/0');
    expect(s.scrub(pgUrl)).toBe('postgres://app:[redacted]@db.internal:5432/agentport');
    expect(s.scrub(`token ${jwt}.`)).toBe('token [redacted].');
    expect(s.scrub('https://h/cb?code=1&access_token=abc.def&x=1')).toBe('https://h/cb?code=1&access_token=[redacted]&x=1');
    expect(s.scrub('grant_type=client_credentials&client_secret=s3cr3t')).toBe('grant_type=client_credentials&client_secret=[redacted]');
    // ordinary text is left alone
    expect(s.scrub('a2a:publish scope; keyId 0123456789abcdef; https://example.com/a?b=c')).toBe('a2a:publish scope; keyId 0123456789abcdef; https://example.com/a?b=c');
  });

  it('scrubs the configured secrets by value, however they are quoted', () => {
    const s = new SecretScrubber(['plain-config-key-1234', 'with"quote\\and-slash', 'short']);
    expect(s.scrub('{"msg":"auth with plain-config-key-1234 failed"}')).toBe('{"msg":"auth with [redacted] failed"}');
    expect(s.scrub(JSON.stringify({ msg: 'x with"quote\\and-slash y' }))).toBe('{"msg":"x [redacted] y"}');
    expect(s.scrub('a short word')).toBe('a short word');
  });

  it('finds the secrets of a configuration: keys, secrets, tokens, credential headers, URL passwords', () => {
    const config = parseConfig(
      {
        storage: pgUrl,
        auth: { mode: 'required', apiKeys: [{ key: 'config-api-key-0001', subject: 'ops' }], sharedSecret: { secret: 'shared-secret-value-0123456789abcdef' } },
        audit: { webhook: { url: 'https://siem.example/in', headers: { Authorization: 'Splunk hec-token-value', 'Content-Type': 'application/json' } } },
      },
      { cwd: tempDir(), env: {} },
    );
    const secrets = configSecrets(config);
    expect(secrets).toEqual(expect.arrayContaining(['config-api-key-0001', 'shared-secret-value-0123456789abcdef', 'Splunk hec-token-value', 'pg-Pa55word%21', 'pg-Pa55word!']));
    expect(secrets).not.toContain('application/json');
    expect(secrets).not.toContain('ops');
  });

  it('redacts secret fields by name and secret shapes in messages, errors and nested values', () => {
    const out = captureLog();
    const loggers = createServerLoggers({ level: 'trace', logging: { levels: {} }, destination: out, secrets: ['config-api-key-0001'] });
    const log = loggers.module('push');
    log.info({ password: 'hunter2-password', headers: { authorization: 'Bearer t0ken-value-123', cookie: 'sid=cookie-value-456' } }, 'fields');
    log.info({ config: { url: 'https://hook', token: 'push-token-789', authentication: { scheme: 'Bearer', credentials: 'push-cred-000' } } }, 'push config');
    log.warn({ err: new Error(`connect ECONNREFUSED ${redisUrl}`) }, 'bus down');
    log.error({ detail: { nested: { deeper: `failed for ${pgUrl} with ${API_KEY}` } } }, 'nested');
    log.info('the configured key %s was presented', 'config-api-key-0001');
    const text = out.lines.join('');
    for (const secret of ['hunter2-password', 't0ken-value-123', 'cookie-value-456', 'push-token-789', 'push-cred-000', 'r3dis-Pa55word', 'pg-Pa55word', 'S'.repeat(43), 'config-api-key-0001']) {
      expect(text, secret).not.toContain(secret);
    }
    const [fields, push, bus] = out.records();
    expect(fields).toMatchObject({ password: '[redacted]', headers: { authorization: '[redacted]', cookie: '[redacted]' } });
    expect(push).toMatchObject({ config: { url: 'https://hook', token: '[redacted]', authentication: { scheme: 'Bearer', credentials: '[redacted]' } } });
    expect((bus!.err as { message: string }).message).toBe('connect ECONNREFUSED redis://default:[redacted]@cache.internal:6379/0');
    expect(out.lines).toHaveLength(5);
  });
});
