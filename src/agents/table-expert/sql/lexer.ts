/**
 * A tokenizer for DuckDB's SQL dialect, good enough to tell statements, keywords, strings and
 * comments apart: the first line of the query guard. It follows the PostgreSQL lexical rules DuckDB
 * inherits (nested block comments, `''` and E-string escapes, dollar quoting), because a guard that
 * reads comments or strings differently from the database is a guard that can be walked around.
 */

export type TokenKind = 'word' | 'ident' | 'string' | 'number' | 'param' | 'op' | 'semicolon' | 'lparen' | 'rparen' | 'comma';

export interface Token {
  kind: TokenKind;
  /** for words: the text as written; for idents and strings: the decoded content */
  text: string;
  /** offset of the token's first character in the input */
  pos: number;
}

export class SqlLexError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const start = i;
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
      if (depth > 0) throw new SqlLexError('unterminated /* comment', start);
      continue;
    }
    if (c === "'" || ((c === 'E' || c === 'e') && sql[i + 1] === "'")) {
      const start = i;
      const escapes = c !== "'";
      i += escapes ? 2 : 1;
      let text = '';
      for (;;) {
        if (i >= n) throw new SqlLexError('unterminated string literal', start);
        const ch = sql[i]!;
        if (escapes && ch === '\\') {
          text += sql[i + 1] ?? '';
          i += 2;
          continue;
        }
        if (ch === "'") {
          if (sql[i + 1] === "'") {
            text += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += ch;
        i++;
      }
      out.push({ kind: 'string', text, pos: start });
      continue;
    }
    if (c === '"') {
      const start = i;
      i++;
      let text = '';
      for (;;) {
        if (i >= n) throw new SqlLexError('unterminated quoted identifier', start);
        if (sql[i] === '"') {
          if (sql[i + 1] === '"') {
            text += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += sql[i];
        i++;
      }
      out.push({ kind: 'ident', text, pos: start });
      continue;
    }
    if (c === '$') {
      const start = i;
      const param = /^\$\d+/.exec(sql.slice(i, i + 12));
      if (param) {
        out.push({ kind: 'param', text: param[0], pos: start });
        i += param[0].length;
        continue;
      }
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 70));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close < 0) throw new SqlLexError('unterminated dollar-quoted string', start);
        out.push({ kind: 'string', text: sql.slice(i + tag[0].length, close), pos: start });
        i = close + tag[0].length;
        continue;
      }
      out.push({ kind: 'op', text: '$', pos: i++ });
      continue;
    }
    if (c === '`') throw new SqlLexError('backquoted identifiers are not supported; use "double quotes"', i);
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const m = /^(0x[0-9a-fA-F_]+|0b[01_]+|[0-9_]*\.?[0-9_]+(?:[eE][+-]?[0-9]+)?)/.exec(sql.slice(i));
      const text = m ? m[0] : c;
      out.push({ kind: 'number', text, pos: i });
      i += text.length;
      continue;
    }
    if (WORD_START.test(c)) {
      const start = i;
      while (i < n && WORD_PART.test(sql[i]!)) i++;
      out.push({ kind: 'word', text: sql.slice(start, i), pos: start });
      continue;
    }
    if (c === ';') out.push({ kind: 'semicolon', text: c, pos: i });
    else if (c === '(') out.push({ kind: 'lparen', text: c, pos: i });
    else if (c === ')') out.push({ kind: 'rparen', text: c, pos: i });
    else if (c === ',') out.push({ kind: 'comma', text: c, pos: i });
    else out.push({ kind: 'op', text: c, pos: i });
    i++;
  }
  return out;
}
