import { describe, expect, it } from 'vitest';
import { messageToToolResult, taskToToolResult } from '../../../../src/bindings/mcp/tools/tool-result.js';
import type { Task } from '../../../../src/protocol/a2a/types.js';

const task = (over: Partial<Task>): Task => ({ id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' }, ...over });

describe('A2A results as MCP tool results', () => {
  it('maps image parts to image content, other files to embedded resources, URLs to resource links', () => {
    const r = taskToToolResult(
      task({
        artifacts: [
          {
            artifactId: 'a1',
            parts: [
              { raw: 'iVBORw0KGgo=', mediaType: 'image/png' },
              { raw: 'JVBERi0=', mediaType: 'application/pdf', filename: 'report.pdf' },
              { url: 'https://example.com/x.csv', mediaType: 'text/csv', filename: 'x.csv' },
            ],
          },
        ],
      }),
      'a_b',
    );
    expect(r.isError).toBeFalsy();
    expect(r.content).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'agentport://tasks/t1/artifacts/a1/1/report.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' } },
      { type: 'resource_link', uri: 'https://example.com/x.csv', name: 'x.csv', mimeType: 'text/csv' },
    ]);
  });

  it('puts several DataParts under structuredContent.data with a JSON text fallback', () => {
    const r = taskToToolResult(task({ artifacts: [{ artifactId: 'a', parts: [{ data: [1, 2] }, { data: { k: 'v' } }] }] }), 'a_b');
    expect(r.structuredContent).toEqual({ data: [[1, 2], { k: 'v' }] });
    expect(r.content).toEqual([{ type: 'text', text: '{"data":[[1,2],{"k":"v"}]}' }]);
  });

  it('uses the status message when a completed task has no artifacts', () => {
    const r = taskToToolResult(task({ status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } } }), 'a_b');
    expect(r.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('says how to continue an INPUT_REQUIRED task', () => {
    const r = taskToToolResult(task({ status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Which year?' }] } } }), 'sales_ask');
    expect(r.isError).toBe(true);
    expect((r.content[0] as { text: string }).text).toContain('call sales_ask again with {"taskId": "t1"');
    expect(r.structuredContent).toEqual({ taskId: 't1', contextId: 'c1', state: 'TASK_STATE_INPUT_REQUIRED', question: 'Which year?' });
  });

  it('maps a REJECTED task to isError with the agent text and its error data', () => {
    const r = taskToToolResult(task({ status: { state: 'TASK_STATE_REJECTED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'not allowed' }, { data: { error: { code: 'x' } } }] } } }), 'a_b');
    expect(r.isError).toBe(true);
    expect(r.content[0]).toEqual({ type: 'text', text: 'not allowed' });
    expect(r.structuredContent).toEqual({ error: { code: 'x' } });
  });

  it('maps a direct message reply to content', () => {
    expect(messageToToolResult({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] }).content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
