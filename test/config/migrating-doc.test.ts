/**
 * docs/migrating-from-novaeden.md: its example configuration loads with the replaced service's
 * environment variables, and every variable that service documents has a row in the mapping table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { tempDir, writeFile } from './helpers.js';

const doc = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/migrating-from-novaeden.md'), 'utf8');

/** The variables the replaced service's README and docs name (server side, and its scripts'). */
const NOVAEDEN_VARIABLES = [
  'API_EXTERNAL_URL',
  'STAGE',
  'OIDC_DISCOVERY_URL',
  'OIDC_ISSUER',
  'OIDC_JWKS_URL',
  'OIDC_ALLOWED_AUDIENCES',
  'API_AUDIENCE',
  'OIDC_AUTH_URL',
  'OIDC_TOKEN_URL',
  'OIDC_USERINFO_URL',
  'MCP_OAUTH_DEFAULT_CLIENT_ID',
  'MCP_OAUTH_REDIRECT_URI',
  'MCP_CLAUDE_CODE_REDIRECT_URI',
  'MCP_CHATGPT_ALLOWED_REDIRECT_PREFIXES',
  'MCP_CLAUDE_CODE_ALLOWED_REDIRECT_PREFIXES',
  'MCP_OAUTH_DEFAULT_SCOPE',
  'MCP_OAUTH_CODE_SECRET',
  'MCP_OAUTH_TOKEN_SECRET',
  'MCP_OAUTH_AUTO_APPROVE_ENABLED',
  'MCP_OAUTH_AUTO_APPROVE_BEARER_TOKEN',
  'MCP_OAUTH_AUTO_APPROVE_USECASE_ID',
  'MCP_FORCE_USECASE_ID',
  'MCP_DEFAULT_TOPIC',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'T_ONE_FUNCTION_ARN',
  'AUTH0_CLIENT_ID',
  'AUTH0_CLIENT_SECRET',
  'M2M_CLIENT_ID',
  'M2M_CLIENT_SECRET',
];

describe('docs/migrating-from-novaeden.md', () => {
  it('maps every environment variable of the replaced service in its table', () => {
    const rows = doc.split('\n').filter((l) => l.startsWith('| `'));
    for (const v of NOVAEDEN_VARIABLES)
      expect(
        rows.some((r) => r.split('|')[1]!.includes(`\`${v}\``)),
        v,
      ).toBe(true);
  });

  it('has an example configuration that loads with those variables', () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    const dir = tempDir();
    const file = writeFile(dir, 'agentport.yaml', block);
    const config = loadConfig({
      file,
      env: {
        API_EXTERNAL_URL: 'https://api-stg.novaeden.com',
        OIDC_ISSUER: 'https://tenant.logto.app/oidc',
        OIDC_ALLOWED_AUDIENCES: 'https://api-stg.novaeden.com',
        OIDC_JWKS_URL: 'https://tenant.logto.app/oidc/jwks',
        MCP_FORCE_USECASE_ID: 'usecase_abc123',
      },
    });
    expect(config.server.publicUrl).toBe('https://api-stg.novaeden.com');
    expect(config.auth.forceUsecase).toBe('usecase_abc123');
    expect(config.auth.forceUsecaseMode).toBe('override');
    expect(config.auth.oauth.defaultClient?.id).toBe('novaeden-mcp-default');
    expect(config.auth.oauth.login).toEqual(['password', 'token']);
  });
});
