/**
 * Calling an agent's MCP tools from the console: pick a tool, fill in its arguments (a form made
 * from the tool's input schema, or the arguments as raw JSON), call it; the result's content is
 * shown (text as text, structured content as JSON) with the raw request and response.
 */
import { useState } from 'preact/hooks';
import { listTools, mcpRequest, type McpExchange } from './mcp-client.js';
import { initialArguments, missingRequired, SchemaForm } from './playground/schema-form.js';
import { Problem, Status, useLoad } from './ui.js';

interface CallToolResult {
  content?: Array<{ type: string; text?: string; mimeType?: string; uri?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

export function McpPlayground({ agentId }: { agentId: string }) {
  const tools = useLoad(() => listTools(agentId), [agentId]);
  const [name, setName] = useState<string>();
  const chosen = tools.data?.find((t) => t.name === name) ?? tools.data?.[0];
  // One arguments value per tool, edited by the form; the raw JSON box edits its text instead.
  const [edited, setEdited] = useState<Record<string, Record<string, unknown>>>({});
  const args = chosen ? (edited[chosen.name] ?? initialArguments(chosen.inputSchema)) : {};
  const [raw, setRaw] = useState<string>();
  const [exchange, setExchange] = useState<McpExchange<CallToolResult>>();
  const [problem, setProblem] = useState<string>();
  const [calling, setCalling] = useState(false);

  const setArgs = (v: Record<string, unknown>) => chosen && setEdited((all) => ({ ...all, [chosen.name]: v }));

  /** The raw text read back into the form's value; undefined (and a problem shown) when it is not a JSON object. */
  const parseRaw = (text: string): Record<string, unknown> | undefined => {
    try {
      const v = JSON.parse(text) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // reported below
    }
    setProblem('The arguments are not a JSON object.');
    return undefined;
  };

  const toggleRaw = (on: boolean) => {
    setProblem(undefined);
    if (on) {
      setRaw(JSON.stringify(args, null, 2));
      return;
    }
    const parsed = raw === undefined ? args : parseRaw(raw);
    if (!parsed) return;
    setArgs(parsed);
    setRaw(undefined);
  };

  const callTool = async (ev: Event) => {
    ev.preventDefault();
    if (!chosen) return;
    setProblem(undefined);
    const parsed = raw === undefined ? args : parseRaw(raw);
    if (!parsed) return;
    const missing = missingRequired(chosen.inputSchema, parsed);
    if (missing.length > 0) {
      setProblem(`Fill in the required ${missing.length === 1 ? 'argument' : 'arguments'}: ${missing.join(', ')}.`);
      return;
    }
    setCalling(true);
    try {
      setExchange(await mcpRequest<CallToolResult>(agentId, 'tools/call', { name: chosen.name, arguments: parsed }));
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setCalling(false);
    }
  };

  return (
    <section class="playground" aria-labelledby="mcp-playground-title">
      <h2 id="mcp-playground-title">MCP tools</h2>
      <Status loaded={tools}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">This agent has no MCP tools for you.</p>
          ) : (
            <form class="composer" onSubmit={callTool}>
              <label for="mcp-tool">Tool</label>
              <select
                id="mcp-tool"
                value={chosen?.name}
                onChange={(e) => {
                  setName(e.currentTarget.value);
                  setRaw(undefined);
                  setProblem(undefined);
                }}
              >
                {list.map((t) => (
                  <option key={t.name} value={t.name}>
                    {t.name}
                  </option>
                ))}
              </select>
              {chosen?.description && <p class="muted">{chosen.description}</p>}
              <label class="raw-toggle">
                <input type="checkbox" checked={raw !== undefined} onChange={(e) => toggleRaw(e.currentTarget.checked)} /> Edit the arguments as raw JSON
              </label>
              {raw === undefined ? (
                <SchemaForm key={chosen?.name} schema={chosen?.inputSchema} value={args} onChange={setArgs} idPrefix="mcp-arg" />
              ) : (
                <>
                  <label for="mcp-arguments">Arguments (JSON)</label>
                  <textarea id="mcp-arguments" rows={6} value={raw} onInput={(e) => setRaw(e.currentTarget.value)} />
                </>
              )}
              <div>
                <button type="submit" class="primary" disabled={calling}>
                  Call tool
                </button>
              </div>
            </form>
          )
        }
      </Status>
      <Problem text={problem ?? exchange?.error} />
      {exchange?.result && (
        <div id="mcp-result" class={exchange.result.isError ? 'tool-error' : undefined}>
          <h3>Result{exchange.result.isError ? ' (the tool reported an error)' : ''}</h3>
          {(exchange.result.content ?? []).map((c, i) =>
            c.type === 'text' ? (
              <pre key={i} class="part-text">
                {c.text}
              </pre>
            ) : (
              <p key={i} class="muted">
                {c.type} {c.mimeType ?? ''} {c.uri ?? ''}
              </p>
            ),
          )}
          {exchange.result.structuredContent !== undefined && (
            <details>
              <summary>Structured content</summary>
              <pre class="part-data">{JSON.stringify(exchange.result.structuredContent, null, 2)}</pre>
            </details>
          )}
        </div>
      )}
      {exchange && (
        <details>
          <summary>Raw request and response</summary>
          <pre class="raw" id="mcp-raw">
            {`→ ${exchange.request}\n← ${exchange.response}`}
          </pre>
        </details>
      )}
    </section>
  );
}
