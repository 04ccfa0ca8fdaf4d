/** Connect: how to connect ChatGPT, Claude, Claude Code, the MCP Inspector and A2A clients, with this server's real URLs (the steps the page at / shows). */
import { useState } from 'preact/hooks';
import { serverUrl } from '../api.js';
import { Status, useLoad } from '../ui.js';

interface Guide {
  client: string;
  title: string;
  steps: Array<{ text: string; code?: string }>;
}

async function guides(): Promise<{ mcp: { url: string }; connect: Guide[] }> {
  const res = await fetch(serverUrl(''), { headers: { Accept: 'application/json' }, cache: 'no-store' });
  return (await res.json()) as { mcp: { url: string }; connect: Guide[] };
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <button type="button" class="copy" onClick={copy} aria-label={`Copy ${label}`}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export function ConnectPage() {
  const loaded = useLoad(guides, []);
  return (
    <>
      <h1>Connect</h1>
      <Status loaded={loaded}>
        {(g) => (
          <>
            <p>
              Every agent is a set of MCP tools at <code id="connect-mcp-url">{g.mcp.url}</code> <CopyButton text={g.mcp.url} label="the MCP URL" />
            </p>
            {g.connect.map((guide) => (
              <section key={guide.client} id={`connect-${guide.client}`} aria-labelledby={`connect-${guide.client}-title`}>
                <h2 id={`connect-${guide.client}-title`}>{guide.title}</h2>
                <ol>
                  {guide.steps.map((step) => (
                    <li key={step.text}>
                      {step.text}
                      {step.code && (
                        <div class="snippet">
                          <pre class="snippet-code">
                            <code>{step.code}</code>
                          </pre>
                          <CopyButton text={step.code} label={`${guide.title}: ${step.text}`} />
                        </div>
                      )}
                    </li>
                  ))}
                </ol>
              </section>
            ))}
          </>
        )}
      </Status>
    </>
  );
}
