/** `agents[].llm`: defaults, `${ENV}` keys, and errors that name the key. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { configErrorOf, problemLines } from './helpers.js';

const llm = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', model: 'gpt-4.1', instructions: 'Help analysts.', ...extra });

describe('agents[].llm', () => {
  it('resolves defaults per provider and substitutes the key from the environment', () => {
    const config = parseConfig(
      {
        agents: [
          { id: 'a', llm: llm({ apiKey: '${OPENAI_API_KEY}', tools: ['echo'] }) },
          { id: 'b', llm: llm({ provider: 'anthropic', model: 'claude', baseUrl: 'https://gw.example.com/anthropic/v1/' }) },
          { id: 'echo', builtin: 'echo' },
        ],
      },
      { env: { OPENAI_API_KEY: 'sk-from-env' } },
    );
    const [a, b] = config.agents;
    expect(a!.llm).toMatchObject({ provider: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-from-env', tools: ['echo'], maxSteps: 8, askUser: true });
    expect(b!.llm).toMatchObject({ provider: 'anthropic', baseUrl: 'https://gw.example.com/anthropic/v1', maxOutputTokens: 4096 });
  });

  it('names each wrong key', () => {
    const err = configErrorOf(() =>
      parseConfig(
        {
          agents: [
            { id: 'a', llm: llm({ provider: 'gemini', maxSteps: 0, tools: ['nope', 'a'], temprature: 1 }) },
            { id: 'b', llm: llm({ instructions: '' }), builtin: 'echo' },
          ],
        },
        { env: {} },
      ),
    );
    const lines = problemLines(err).join('\n');
    expect(lines).toMatch(/agents\[0\]\.llm\.provider: .*openai.*anthropic/);
    expect(lines).toMatch(/agents\[0\]\.llm\.maxSteps/);
    expect(lines).toMatch(/agents\[0\]\.llm\.tools\[0\]: no agent has this id \(got "nope"/);
    expect(lines).toMatch(/agents\[0\]\.llm\.tools\[1\]: an agent cannot be its own tool/);
    expect(lines).toMatch(/agents\[0\]\.llm.*temprature/);
    expect(lines).toMatch(/agents\[1\]\.llm\.instructions/);
    expect(lines).toMatch(/agents\[1\]: set either llm or builtin, not both/);
  });
});
