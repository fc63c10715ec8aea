// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * The console's small building blocks: labelled fields whose error sits next to them (and is tied to
 * them for screen readers), notices, the CSRF field, panels, page heads, buttons, facts, tables in a
 * scrollable region, dates. Pages use these so every page looks and behaves the same, and no page writes
 * their markup again.
 */
import type { Child, FC } from "hono/jsx";
import type { Context } from "hono";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { allows, type Role } from "../../../core/auth/roles.ts";

/** Renders a page as a full HTML document (with its doctype) and the given status. */
export async function render(
  c: Context,
  node: Child,
  status: 200 | 400 | 403 | 404 | 405 | 409 | 422 | 429 | 500 | 503 = 200,
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
  label: Child;
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
  /** Further attributes of the input (inputmode, step, min, max, pattern, spellcheck). */
  attrs?: Record<string, string | number | boolean | undefined>;
}

/** The id of a field's control: `f-` and its name, with characters an id should not hold as `-`. */
export const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** The attributes that tie a control to its hint and its error. */
export function describedBy(id: string, hint: string | undefined, error: string | undefined) {
  const ids = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  return { "aria-invalid": error ? "true" : undefined, "aria-describedby": ids || undefined } as const;
}

/** The frame every labelled control shares (label, hint, the control, its error), so no control writes it. */
export const FieldFrame: FC<{ id: string; label: Child; hint?: string; error?: string; children?: Child }> = (
  { id, label, hint, error, children },
) => (
  <div class={error ? "field invalid" : "field"}>
    <label for={id}>{label}</label>
    {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
    {children}
    {error && <p class="error" id={`${id}-error`}>{error}</p>}
  </div>
);

/**
 * Every form that changes something: the CSRF token first (checked before the rest is read), then the rest.
 * Shown only to a person whose role includes `needs` (null: anyone signed in), as the route checks it too.
 */
export const PostForm: FC<{
  action: string;
  session: ConsoleSession;
  needs: Role | null;
  /** Hidden fields, after the token. */
  hidden?: Record<string, string>;
  /** Its form-wide error (`errors.form`) is shown first. */
  state?: FormState;
  class?: string;
  /** The id of the heading that names the form. */
  labelledBy?: string;
  enctype?: "multipart/form-data";
  children?: Child;
}> = (p) =>
  p.needs !== null && !allows(p.session.role, p.needs) ? null : (
    <form
      method="post"
      action={p.action}
      class={p.class}
      aria-labelledby={p.labelledBy}
      enctype={p.enctype}
    >
      <Csrf session={p.session} />
      {Object.entries(p.hidden ?? {}).map(([name, value]) => (
        <input
          type="hidden"
          name={name}
          value={value}
        />
      ))}
      {p.state?.errors?.form && <Notice kind="error">{p.state.errors.form}</Notice>}
      {p.children}
    </form>
  );

/** A text-like input with its label, an optional hint, and its error right below it. */
export const Field: FC<FieldProps> = (p) => {
  const id = p.id ?? fieldId(p.name);
  const error = p.state?.errors?.[p.name];
  const value = p.type === "password" || p.type === "file" ? undefined : p.state?.values?.[p.name] ?? p.value;
  return (
    <FieldFrame id={id} label={p.label} hint={p.hint} error={error}>
      <input
        id={id}
        name={p.name}
        type={p.type ?? "text"}
        {...p.attrs}
        value={value}
        required={p.required}
        autocomplete={p.autocomplete}
        accept={p.accept}
        placeholder={p.placeholder}
        {...describedBy(id, p.hint, error)}
      />
    </FieldFrame>
  );
};

/** A select with its label; `options` are [value, label] pairs. */
export const SelectField: FC<
  {
    label: Child;
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
  return (
    <FieldFrame id={id} label={p.label} hint={p.hint} error={error}>
      <select id={id} name={p.name} {...describedBy(id, p.hint, error)}>
        {p.options.map(([v, l]) => <option value={v} selected={v === chosen}>{l}</option>)}
      </select>
    </FieldFrame>
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
const TableRegion: FC<{ label: string; compact?: boolean; children?: Child }> = (
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

/** A page's one-paragraph message, or nothing without text, so pages pass their optional notice as it is. */
export const Message: FC<{ kind: "info" | "success" | "error"; text?: Child }> = ({ kind, text }) =>
  text
    ? (
      <Notice kind={kind}>
        <p>{text}</p>
      </Notice>
    )
    : null;

/** Every page's heading with the line under it (or, as children, what stands there instead: badges). */
export const PageHead: FC<{ title: Child; lede?: Child; children?: Child }> = ({ title, lede, children }) => (
  <div class="page-head">
    <h1>{title}</h1>
    {lede !== undefined && <p class="muted">{lede}</p>}
    {children}
  </div>
);

/** The link back up ("← All datasets") that a page below a list starts with. */
export const BackLink: FC<{ href: string; class?: string; children?: Child }> = (p) => (
  <p class={p.class}>
    <a href={p.href}>← {p.children}</a>
  </p>
);

/** A page's panel: a section named by its h2, the two tied by `id` (the heading's; `anchor` the section's). */
export const Panel: FC<{
  id: string;
  /** The h2; without it a child brings the heading with the id. */
  title?: Child;
  /** Classes besides "panel". */
  class?: string;
  anchor?: string;
  /** Further attributes of the section (a `data-` hook of the page's script). */
  attrs?: Record<string, string>;
  children?: Child;
}> = (p) => (
  <section class={p.class ? `panel ${p.class}` : "panel"} id={p.anchor} aria-labelledby={p.id} {...p.attrs}>
    {p.title !== undefined && <h2 id={p.id}>{p.title}</h2>}
    {p.children}
  </section>
);

/** A form's row of buttons: its submit button, then any links (Cancel), styled the same on every form. */
export const Submit: FC<{
  label: Child;
  kind?: "secondary" | "danger";
  /** `name` and `value` say which of a form's buttons sent it. */
  name?: string;
  value?: string;
  /** What the page's script shows while the form is under way. */
  busy?: string;
  disabled?: boolean;
  children?: Child;
}> = (p) => (
  <div class="form-actions">
    <button
      type="submit"
      class={p.kind ? `btn btn-${p.kind}` : "btn"}
      name={p.name}
      value={p.value}
      data-busy={p.busy}
      disabled={p.disabled}
    >
      {p.label}
    </button>
    {p.children}
  </div>
);

/** The facts about one thing (a dataset, a job, a task) as [term, value] pairs; a false entry is left out. */
export const Facts: FC<{ items: ([Child, Child] | false | "" | null | undefined)[] }> = ({ items }) => (
  <dl class="facts">
    {items.filter((x): x is [Child, Child] => Boolean(x)).map(([term, value]) => (
      <>
        <dt>{term}</dt>
        <dd>{value}</dd>
      </>
    ))}
  </dl>
);

/** One column of a DataTable: its header, what its cells hold, and how they align. */
export interface Column<T> {
  /** The header cell's content: the column's name for a screen reader too. */
  head?: Child;
  /** A header cell of its own instead of `<th scope="col">` (one that sorts, or has a class of its own). */
  th?: Child;
  /** Right-aligned: "num" on the header and the cells. */
  num?: boolean;
  /** The cells' class when it is more than "num" ("num nowrap", "nowrap", "cell"). */
  class?: string;
  /** The cells are the row's header (`<th scope="row">`): what a screen reader names each row by. */
  rowHead?: boolean;
  cell: (row: T, index: number) => Child;
}

/** The first column of a list of things: each row named by a link to the thing's own page. */
export const linkColumn = <T,>(
  head: string,
  href: (row: T) => string,
  text: (row: T) => string,
): Column<T> => ({
  head,
  rowHead: true,
  cell: (row) => <a href={href(row)}>{text(row)}</a>,
});

/** Every console table: one row per item in the given columns, in a region that scrolls it sideways. */
export function DataTable<T>(p: {
  /** The region's accessible name. */
  label: string;
  columns: (Column<T> | false | null | undefined)[];
  rows: T[];
  rowClass?: (row: T) => string | undefined;
  compact?: boolean;
  class?: string;
  caption?: string;
  /** The caption is for screen readers only. */
  captionHidden?: boolean;
}) {
  const columns = p.columns.filter((c): c is Column<T> => Boolean(c));
  return (
    <TableRegion label={p.label} compact={p.compact}>
      <table class={p.class}>
        {p.caption && p.captionHidden && <caption class="visually-hidden">{p.caption}</caption>}
        {p.caption && !p.captionHidden && <caption>{p.caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => c.th ?? <th scope="col" class={c.num ? "num" : undefined}>{c.head}</th>)}
          </tr>
        </thead>
        <tbody>
          {p.rows.map((row, i) => (
            <tr class={p.rowClass?.(row)}>
              {columns.map((c) => {
                const cls = c.class ?? (c.num ? "num" : undefined);
                return c.rowHead
                  ? <th scope="row" class={cls}>{c.cell(row, i)}</th>
                  : <td class={cls}>{c.cell(row, i)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

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
