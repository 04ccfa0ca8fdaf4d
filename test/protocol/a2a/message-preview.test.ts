import { describe, expect, it } from 'vitest';
import { firstMessagePreview } from '../../../src/protocol/a2a/message-preview.js';
import type { Message } from '../../../src/protocol/a2a/types.js';

const msg = (role: Message['role'], parts: Message['parts']): Message => ({ messageId: crypto.randomUUID(), role, parts });

describe('first-message preview of a task', () => {
  it('is the first user message, not an earlier agent message nor a later user one', () => {
    const history = [msg('ROLE_AGENT', [{ text: 'welcome' }]), msg('ROLE_USER', [{ text: 'find Oslo' }]), msg('ROLE_USER', [{ text: 'and Bergen' }])];
    expect(firstMessagePreview({ history })).toBe('find Oslo');
  });

  it('folds whitespace and joins the parts: text, data as JSON, a file by name', () => {
    const history = [msg('ROLE_USER', [{ text: '  two\n\nlines\t ' }, { data: { city: 'Oslo' } }, { raw: 'aGk=', filename: 'h.txt' }, { url: 'https://x/y' }])];
    expect(firstMessagePreview({ history })).toBe('two lines {"city":"Oslo"} [file h.txt] [file]');
  });

  it('cuts a long message to the limit, ending in an ellipsis, without splitting a character', () => {
    const history = [msg('ROLE_USER', [{ text: `${'a'.repeat(9)} 😀😀😀` }])];
    // 10 characters at most: 9 kept, the tenth is the ellipsis; the emoji count as one each.
    expect(firstMessagePreview({ history }, 10)).toBe(`${'a'.repeat(9)}…`);
    expect(firstMessagePreview({ history }, 12)).toBe(`${'a'.repeat(9)} 😀…`);
    expect(firstMessagePreview({ history }, 13)).toBe(`${'a'.repeat(9)} 😀😀😀`);
  });

  it('is undefined without a user message or with only empty text', () => {
    expect(firstMessagePreview({})).toBeUndefined();
    expect(firstMessagePreview({ history: [msg('ROLE_AGENT', [{ text: 'hi' }])] })).toBeUndefined();
    expect(firstMessagePreview({ history: [msg('ROLE_USER', [{ text: ' \n ' }])] })).toBeUndefined();
  });
});
