import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines, tempDir } from './helpers.js';

const parse = (input: unknown, env: Record<string, string> = {}) => parseConfig(input, { cwd: tempDir(), env });

describe('agents[].skills[id].annotations (MCP tool hints)', () => {
  it('resolves the hints of a skill next to its visibility', () => {
    const config = parse({
      agents: [{ id: 'a', builtin: 'echo', skills: { echo: { visibility: 'extended', annotations: { readOnlyHint: false, destructiveHint: true } } } }],
    });
    expect(config.agents[0]!.skills).toEqual({ echo: { visibility: 'extended', annotations: { readOnlyHint: false, destructiveHint: true } } });
  });

  it('accepts hints without a visibility override, which stays the card default', () => {
    const config = parse({ agents: [{ id: 'a', builtin: 'echo', skills: { echo: { annotations: { idempotentHint: true, openWorldHint: false } } } }] });
    expect(config.agents[0]!.skills.echo).toEqual({ annotations: { idempotentHint: true, openWorldHint: false } });
    expect(config.agents[0]!.skills.echo!.visibility).toBeUndefined();
  });

  it('takes a hint from an environment variable', () => {
    const config = parse({ agents: [{ id: 'a', builtin: 'echo', skills: { echo: { annotations: { readOnlyHint: '${RO}' } } } }] }, { RO: 'true' });
    expect(config.agents[0]!.skills.echo!.annotations).toEqual({ readOnlyHint: true });
  });

  it('names an unknown hint with its full path', () => {
    const error = configErrorOf(() => parse({ agents: [{ id: 'a', builtin: 'echo', skills: { echo: { annotations: { readOnly: true } } } }] }));
    const lines = problemLines(error);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe('agents[0].skills.echo.annotations.readOnly: unknown key (did you mean "readOnlyHint"?)');
  });

  it('refuses a hint that is not a boolean', () => {
    const error = configErrorOf(() => parse({ agents: [{ id: 'a', builtin: 'echo', skills: { echo: { annotations: { destructiveHint: 'maybe' } } } }] }));
    expect(problemLines(error)).toEqual(['agents[0].skills.echo.annotations.destructiveHint: must be true or false (got "maybe")']);
  });
});
