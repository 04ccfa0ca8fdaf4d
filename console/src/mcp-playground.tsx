/**
 * Calling an agent's MCP tools from the console: pick a tool, write its arguments (JSON, started
 * from the tool's input schema), call it; the result's content is shown (text as text, structured
 * content as JSON) with the raw request and response.
 */
import { useState } from 'preact/hooks';
import { listTools, mcpRequest, type McpExchange, type McpTool } from './mcp-client.js';
import { Problem, Status, useLoad } from './ui.js';

interface CallToolResult {
  content?: Array<{ type: string; text?: string; mimeType?: string; uri?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/** `{"message": ""}` for a schema whose required properties are strings, and so on. */
function argumentsTemplate(tool: McpTool | undefined): string {
  const required = tool?.inputSchema?.required ?? [];
  return JSON.stringify(Object.fromEntries(required.map((k) => [k, ''])), null, 2);
}

export function McpPlayground({ agentId }: { agentId: string }) {
  const tools = useLoad(() => listTools(agentId), [agentId]);
  const [name, setName] = useState<string>();
  const [args, setArgs] = useState<string>();
  const [exchange, setExchange] = useState<McpExchange<CallToolResult>>();
  const [problem, setProblem] = useState<string>();
  const [calling, setCalling] = useState(false);
  const chosen = tools.data?.find((t) => t.name === name) ?? tools.data?.[0];

  const callTool = async (ev: Event) => {
    ev.preventDefault();
    if (!chosen) return;
    setProblem(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(args ?? argumentsTemplate(chosen));
    } catch {
      setProblem('The arguments are not JSON.');
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
                  setArgs(undefined);
                }}
              >
                {list.map((t) => (
                  <option key={t.name} value={t.name}>
                    {t.name}
                  </option>
                ))}
              </select>
              {chosen?.description && <p class="muted">{chosen.description}</p>}
              <label for="mcp-arguments">Arguments (JSON)</label>
              <textarea id="mcp-arguments" rows={4} value={args ?? argumentsTemplate(chosen)} onInput={(e) => setArgs(e.currentTarget.value)} />
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
