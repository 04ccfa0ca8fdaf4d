/**
 * Markdown text parts (`text/markdown`, as the Table Expert answers) rendered as Preact elements.
 * Only marked's lexer is used: its tokens become elements here, so no HTML string from an agent
 * ever reaches the DOM (raw HTML in the markdown is shown as text, links keep only http(s) and
 * mailto URLs, images become links: the console's CSP loads nothing from elsewhere).
 */
import { Lexer, type Token, type Tokens } from 'marked';
import type { ComponentChildren } from 'preact';

const SAFE_URL = /^(https?:|mailto:)/i;

function safeHref(href: string): string | undefined {
  try {
    const url = new URL(href, location.href);
    return SAFE_URL.test(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function inline(tokens: Token[] | undefined): ComponentChildren {
  return (tokens ?? []).map((t, i) => inlineToken(t, i));
}

function inlineToken(t: Token, key: number): ComponentChildren {
  switch (t.type) {
    case 'strong':
      return <strong key={key}>{inline((t as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em key={key}>{inline((t as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del key={key}>{inline((t as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code key={key}>{(t as Tokens.Codespan).text}</code>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const link = t as Tokens.Link;
      const href = safeHref(link.href);
      const text = inline(link.tokens);
      return href ? (
        <a key={key} href={href} rel="noopener noreferrer" target="_blank">
          {text}
        </a>
      ) : (
        <span key={key}>{text}</span>
      );
    }
    case 'image': {
      const image = t as Tokens.Image;
      const href = safeHref(image.href);
      const label = `[image: ${image.text || image.href}]`;
      return href ? (
        <a key={key} href={href} rel="noopener noreferrer" target="_blank">
          {label}
        </a>
      ) : (
        <span key={key}>{label}</span>
      );
    }
    case 'text': {
      const text = t as Tokens.Text;
      return text.tokens ? inline(text.tokens) : text.text;
    }
    default:
      // escape, html and anything unknown: the characters as written
      return 'text' in t && typeof t.text === 'string' ? t.text : t.raw;
  }
}

function block(tokens: Token[]): ComponentChildren {
  return tokens.map((t, i) => blockToken(t, i));
}

function blockToken(t: Token, key: number): ComponentChildren {
  switch (t.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      // Headings inside an answer sit below the page's own h2/h3: start at h4.
      const depth = Math.min(6, (t as Tokens.Heading).depth + 3);
      const Tag = `h${depth}` as 'h4' | 'h5' | 'h6';
      return <Tag key={key}>{inline((t as Tokens.Heading).tokens)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inline((t as Tokens.Paragraph).tokens)}</p>;
    case 'code':
      return (
        <pre key={key}>
          <code>{(t as Tokens.Code).text}</code>
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{block((t as Tokens.Blockquote).tokens)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'list': {
      const list = t as Tokens.List;
      const items = list.items.map((item, i) => (
        <li key={i}>
          {item.task ? (item.checked ? '☑ ' : '☐ ') : ''}
          {item.loose ? block(item.tokens) : item.tokens.map((c, j) => (c.type === 'text' ? inlineToken(c, j) : blockToken(c, j)))}
        </li>
      ));
      return list.ordered ? (
        <ol key={key} start={typeof list.start === 'number' ? list.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const table = t as Tokens.Table;
      const align = (a: string | null) => (a ? `align-${a}` : undefined);
      return (
        <div key={key} class="table-wrap">
          <table>
            <thead>
              <tr>
                {table.header.map((c, i) => (
                  <th key={i} scope="col" class={align(c.align)}>
                    {inline(c.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, i) => (
                    <td key={i} class={align(c.align)}>
                      {inline(c.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'html':
      return (
        <pre key={key} class="part-text">
          {t.raw}
        </pre>
      );
    default:
      return 'tokens' in t && Array.isArray(t.tokens) ? <p key={key}>{inline(t.tokens)}</p> : <p key={key}>{t.raw}</p>;
  }
}

export function Markdown({ text }: { text: string }) {
  return <div class="part-markdown">{block(new Lexer({ gfm: true }).lex(text))}</div>;
}
