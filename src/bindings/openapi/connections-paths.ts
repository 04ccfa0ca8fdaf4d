/** Per-user OAuth to remotes in the OpenAPI document (ADR 0035): the connections API and the connect pages. */
import { AUTH_ERRORS, error, html, json, param, type Obj } from './builders.js';

export function connectionsPaths(): Obj {
  return {
    '/api/v1/connections': {
      get: {
        tags: ['connections'],
        summary:
          'The caller\u2019s connections to remotes with `auth: oauth` (ADR 0035): for each such agent, connected (scopes, who the caller is there, when connected, refreshed and last used; never a token) or not, with a URL to connect',
        security: [{ bearer: [] }, { apiKey: [] }],
        responses: {
          '200': json(
            {
              type: 'object',
              properties: {
                connections: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      remote: { type: 'string', description: 'the agent id' },
                      status: {
                        enum: ['connected', 'not-connected', 'needs-reconnect'],
                        description: 'needs-reconnect: the access token expired and there is no refresh token; the next call would ask to connect',
                      },
                      connectUrl: { type: 'string', description: 'where the caller connects (again), opened in the browser signed in to the console as the caller' },
                      scopes: { type: 'array', items: { type: 'string' } },
                      remoteSubject: { type: 'string', description: 'who the caller is at the remote, as its token says' },
                      connectedAt: { type: 'string', format: 'date-time' },
                      refreshedAt: { type: 'string', format: 'date-time' },
                      lastUsedAt: { type: 'string', format: 'date-time' },
                      expiresAt: { type: 'string', format: 'date-time' },
                      refreshable: { type: 'boolean' },
                    },
                    required: ['remote', 'status', 'connectUrl'],
                  },
                },
              },
              required: ['connections'],
            },
            'The connections',
          ),
          ...AUTH_ERRORS,
        },
      },
    },
    '/api/v1/connections/{remote}': {
      delete: {
        tags: ['connections'],
        summary: 'Disconnect: the caller\u2019s tokens for this remote are deleted from the vault; the next call asks to connect again',
        security: [{ bearer: [] }, { apiKey: [] }],
        parameters: [param('remote', 'The agent id')],
        responses: { '204': { description: 'Disconnected (or was not connected)' }, '404': error('No agent with auth: oauth of that id'), ...AUTH_ERRORS },
      },
    },
    '/connect/start': {
      get: {
        tags: ['connections'],
        summary:
          'A connect link (from an AUTH_REQUIRED status or the connections list), for the browser signed in to the console as the user it names: redirects to the remote\u2019s authorization server (code + PKCE + resource) and sets the ap_connect cookie the callback needs',
        parameters: [param('ticket', 'The sealed ticket of the link', 'query')],
        responses: {
          '302': { description: 'To the remote\u2019s authorization server' },
          '303': { description: 'No console session: to the console to sign in, which opens the link again' },
          '400': html('An invalid or expired link'),
          '403': html('Signed in as another user than the link names: nothing connected'),
          '502': html('The remote or its authorization server cannot be used'),
        },
      },
    },
    '/connect/callback': {
      get: {
        tags: ['connections'],
        summary: 'The redirect URI of the remote\u2019s authorization server: redeems the code and stores the tokens; the waiting task goes on',
        parameters: [param('code', 'The authorization code', 'query'), param('state', 'The sealed state', 'query'), param('iss', 'RFC 9207 issuer', 'query')],
        responses: {
          '200': html('Connected'),
          '400': html('An invalid or expired state'),
          '403': html('Access not granted, or not the browser that started (no ap_connect cookie of this start)'),
          '502': html('The code was refused'),
        },
      },
    },
  };
}
