/** The small pieces every part of the OpenAPI document is built from (schema refs, answers, parameters). */
export type Obj = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Obj, description: string) => ({ description, content: { 'application/json': { schema } } });
export const error = (description: string) => json(ref('Error'), description);
export const param = (name: string, description: string, where: 'path' | 'query' = 'path', schema: Obj = { type: 'string' }) => ({
  name,
  in: where,
  required: where === 'path',
  description,
  schema,
});
export const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
export const body = (schema: Obj, description?: string) => ({ required: true, ...(description ? { description } : {}), content: { 'application/json': { schema } } });

/** What every authenticated route may answer. */
export const AUTH_ERRORS = {
  '401': error('No valid credential (with a `WWW-Authenticate` challenge)'),
  '403': error('The credential lacks the scope (with a `WWW-Authenticate` challenge naming it)'),
};
