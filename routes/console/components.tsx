/**
 * The console's small building blocks: labelled fields whose error sits next to them (and is tied to
 * them for screen readers), notices, the CSRF field, a scrollable table region, dates. Pages use these
 * so every form looks and behaves the same.
 */
import type { Child, FC } from "hono/jsx";
import type { Context } from "hono";
import type { ConsoleSession } from "../../services/console/sessions.ts";

/** Renders a page as a full HTML document (with its doctype) and the given status. */
export async function render(
  c: Context,
  node: Child,
  status: 200 | 400 | 403 | 404 | 409 | 422 | 429 | 500 | 503 = 200,
) {
  c.header("Cache-Control", "no-store");
  const html = await (node as { toString(): string | Promise<string> }).toString();
  return c.html(`<!doctype html>${html}`, status);
}

/** The session's CSRF token as the hidden field every state-changing form carries. */
export const Csrf: FC<{ session: ConsoleSession }> = ({ session }) => (
  <input type="hidden" name="_csrf" value={session.csrf} />
);

/** A form's values and the message for each field that was refused, keyed by field name. */
export interface FormState {
  values?: Record<string, string>;
  errors?: Record<string, string>;
}

interface FieldProps {
  label: string;
  name: string;
  /** The control's id when `f-<name>` would clash with another form's field on the page. */
  id?: string;
  state?: FormState;
  /** The value when the form state has none. */
  value?: string;
  type?: "text" | "password" | "file" | "number" | "search";
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  accept?: string;
  placeholder?: string;
}

const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** A text-like input with its label, an optional hint, and its error right below it. */
export const Field: FC<FieldProps> = (p) => {
  const id = p.id ?? fieldId(p.name);
  const error = p.state?.errors?.[p.name];
  const value = p.type === "password" || p.type === "file" ? undefined : p.state?.values?.[p.name] ?? p.value;
  const described = [p.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{p.label}</label>
      {p.hint && <p class="hint" id={`${id}-hint`}>{p.hint}</p>}
      <input
        id={id}
        name={p.name}
        type={p.type ?? "text"}
        value={value}
        required={p.required}
        autocomplete={p.autocomplete}
        accept={p.accept}
        placeholder={p.placeholder}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={described || undefined}
      />
      {error && <p class="error" id={`${id}-error`}>{error}</p>}
    </div>
  );
};

/** A select with its label; `options` are [value, label] pairs. */
export const SelectField: FC<
  {
    label: string;
    name: string;
    id?: string;
    options: [string, string][];
    state?: FormState;
    value?: string;
    hint?: string;
  }
> = (p) => {
  const id = p.id ?? fieldId(p.name);
  const error = p.state?.errors?.[p.name];
  const chosen = p.state?.values?.[p.name] ?? p.value ?? "";
  // hono/jsx renders a `key` as an attribute, and a server-rendered list needs none
  // deno-lint-ignore jsx-key
  const options = p.options.map(([v, l]) => <option value={v} selected={v === chosen}>{l}</option>);
  const described = [p.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{p.label}</label>
      {p.hint && <p class="hint" id={`${id}-hint`}>{p.hint}</p>}
      <select
        id={id}
        name={p.name}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={described || undefined}
      >
        {options}
      </select>
      {error && <p class="error" id={`${id}-error`}>{error}</p>}
    </div>
  );
};

/** A checkbox with its label beside it. */
export const CheckField: FC<{ label: string; name: string; state?: FormState; hint?: string }> = (p) => {
  const id = fieldId(p.name);
  return (
    <div class="field check">
      <input
        id={id}
        name={p.name}
        type="checkbox"
        value="true"
        checked={p.state?.values?.[p.name] === "true"}
      />
      <label for={id}>{p.label}</label>
      {p.hint && <p class="hint">{p.hint}</p>}
    </div>
  );
};

/** A message about the whole page or form: `error` is announced at once, the others politely. */
export const Notice: FC<{ kind: "info" | "success" | "error"; id?: string; children?: Child }> = (
  { kind, id, children },
) => (
  <div class={`notice notice-${kind}`} id={id} role={kind === "error" ? "alert" : "status"}>
    {children}
  </div>
);

/** A table that scrolls sideways inside its own region (reachable by keyboard) rather than the page. */
export const TableRegion: FC<{ label: string; compact?: boolean; children?: Child }> = (
  { label, compact, children },
) => (
  <div
    class={compact ? "table-region compact" : "table-region"}
    role="region"
    aria-label={label}
    tabindex={0}
  >
    {children}
  </div>
);

/** An ISO timestamp as "2025-05-04 13:07 UTC" in a `<time>` (without " UTC" when a header says it); a dash when absent. */
export const When: FC<{ iso: unknown; utc?: boolean }> = ({ iso, utc = true }) => {
  if (typeof iso !== "string" || !iso) return <span class="muted">—</span>;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>{iso}</span>;
  const text = d.toISOString().slice(0, 16).replace("T", " ");
  return <time datetime={d.toISOString()}>{utc ? `${text} UTC` : text}</time>;
};

/** A cell's value as text: null and absent as a dash, objects as compact JSON. */
export const Value: FC<{ v: unknown }> = ({ v }) => {
  if (v === null || v === undefined || v === "") return <span class="muted">—</span>;
  if (typeof v === "object") {
    const s = JSON.stringify(v);
    return <code>{s.length > 120 ? `${s.slice(0, 119)}…` : s}</code>;
  }
  return <>{String(v)}</>;
};

/** A status as a small badge (done, pending, anything else). */
export const Status: FC<{ status: string }> = ({ status }) => {
  const kind = status === "done" ? "done" : status === "pending" ? "pending" : "other";
  return <span class={`badge badge-${kind}`}>{status}</span>;
};

/** The form errors of zod-style detail items `[{loc: ["body", field], msg}]`, by field. */
export function errorsByField(detail: { loc: (string | number)[]; msg: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of detail) {
    const field = String(d.loc[1] ?? d.loc[0] ?? "form");
    out[field] ??= d.msg;
  }
  return out;
}
