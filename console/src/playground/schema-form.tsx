/**
 * A form for a tool's arguments, generated from its input schema (JSON Schema, `type: object`):
 * a text box per string (a list for an `enum`), a number box per number or integer, a checkbox per
 * boolean, and a JSON box for anything deeper (arrays, objects, unions). The form edits one value,
 * the arguments object; fields left empty are left out of it.
 */
import { useState } from 'preact/hooks';

export interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  title?: string;
  description?: string;
  default?: unknown;
}

export interface ObjectSchema {
  type?: string;
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

type Args = Record<string, unknown>;

type Kind = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'json';

/** How a property is edited: one plain type gets its own control, everything else is JSON. */
export function kindOf(p: PropertySchema): Kind {
  if (Array.isArray(p.enum) && p.enum.length > 0 && p.enum.every((v) => typeof v === 'string')) return 'enum';
  const types = (Array.isArray(p.type) ? p.type : [p.type]).filter((t) => t !== 'null');
  const [only] = types;
  if (types.length !== 1) return 'json';
  if (only === 'string' || only === 'number' || only === 'integer' || only === 'boolean') return only;
  return 'json';
}

/** The arguments a new form starts from: each property's default, when the schema gives one. */
export function initialArguments(schema: ObjectSchema | undefined): Args {
  return Object.fromEntries(Object.entries(schema?.properties ?? {}).flatMap(([k, p]) => (p.default === undefined ? [] : [[k, p.default]])));
}

/** The required properties without a value, by name. */
export function missingRequired(schema: ObjectSchema | undefined, args: Args): string[] {
  return (schema?.required ?? []).filter((k) => args[k] === undefined || args[k] === '');
}

function JsonField({ id, value, onChange }: { id: string; value: unknown; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  const [bad, setBad] = useState(false);
  return (
    <>
      <textarea
        id={id}
        class="json-field"
        rows={2}
        value={text}
        aria-invalid={bad}
        onInput={(e) => {
          const t = e.currentTarget.value;
          setText(t);
          if (t.trim() === '') {
            setBad(false);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(t) as unknown);
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad && <span class="field-problem">Not JSON yet: the last valid value is kept.</span>}
    </>
  );
}

function Field({ name, schema, required, value, onChange, idPrefix }: { name: string; schema: PropertySchema; required: boolean; value: unknown; onChange: (v: unknown) => void; idPrefix: string }) {
  const id = `${idPrefix}-${name}`;
  const kind = kindOf(schema);
  const label = (
    <label for={id}>
      {schema.title ?? name}
      {required ? <span aria-hidden="true"> *</span> : null}
      {kind === 'json' ? <span class="muted"> (JSON)</span> : null}
    </label>
  );
  const description = schema.description ? <span class="muted field-description">{schema.description}</span> : null;
  if (kind === 'boolean') {
    return (
      <div class="field check">
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />
        {label}
        {description}
      </div>
    );
  }
  let control: preact.JSX.Element;
  if (kind === 'enum') {
    control = (
      <select id={id} value={value === undefined ? '' : String(value)} aria-required={required} onChange={(e) => onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value)}>
        <option value="">{required ? 'choose…' : '(none)'}</option>
        {(schema.enum as string[]).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'number' || kind === 'integer') {
    control = (
      <input
        id={id}
        type="number"
        step={kind === 'integer' ? 1 : 'any'}
        aria-required={required}
        value={typeof value === 'number' ? String(value) : ''}
        onInput={(e) => {
          const t = e.currentTarget.value;
          onChange(t === '' ? undefined : Number(t));
        }}
      />
    );
  } else if (kind === 'string') {
    control = (
      <input id={id} type="text" aria-required={required} value={typeof value === 'string' ? value : ''} onInput={(e) => onChange(e.currentTarget.value === '' && !required ? undefined : e.currentTarget.value)} />
    );
  } else {
    control = <JsonField id={id} value={value} onChange={onChange} />;
  }
  return (
    <div class="field">
      {label}
      {control}
      {description}
    </div>
  );
}

export function SchemaForm({ schema, value, onChange, idPrefix }: { schema: ObjectSchema | undefined; value: Args; onChange: (v: Args) => void; idPrefix: string }) {
  const properties = Object.entries(schema?.properties ?? {});
  const required = new Set(schema?.required ?? []);
  if (properties.length === 0) return <p class="muted">This tool takes no arguments.</p>;
  return (
    <fieldset class="schema-form">
      <legend>Arguments</legend>
      {properties.map(([name, p]) => (
        <Field
          key={name}
          name={name}
          schema={p}
          required={required.has(name)}
          value={value[name]}
          idPrefix={idPrefix}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[name];
            else next[name] = v;
            onChange(next);
          }}
        />
      ))}
    </fieldset>
  );
}
