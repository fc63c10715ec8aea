/**
 * Small pieces of the spatial review page: form controls the shared components lack (numbers with a step,
 * a textarea, a checkbox with its default), stat cards, before → after, a map figure, a CSV link.
 */
import type { Child, FC } from "hono/jsx";
import { describedBy, Field, FieldFrame, fieldId, type FormState } from "../../shared/components.tsx";

// ---------------------------------------------------------------------------------------------------
// Form controls (components.tsx's Field and its frame, with a step, a textarea, a checkbox with its default)

interface ControlProps {
  label: string;
  name: string;
  state: FormState;
  hint?: string;
}

/** A number input (step "any" unless told): the browser checks the range, the server checks again. */
export const NumberField: FC<ControlProps & { min?: number; max?: number; step?: string }> = (p) => (
  <Field
    label={p.label}
    name={p.name}
    state={p.state}
    hint={p.hint}
    type="number"
    value=""
    attrs={{ inputmode: "decimal", step: p.step ?? "any", min: p.min, max: p.max }}
  />
);

/** A textarea. */
export const TextArea: FC<ControlProps & { rows?: number; placeholder?: string }> = (p) => {
  const id = fieldId(p.name);
  const error = p.state.errors?.[p.name];
  return (
    <FieldFrame id={id} label={p.label} hint={p.hint} error={error}>
      <textarea
        id={id}
        name={p.name}
        rows={p.rows ?? 4}
        spellcheck={false}
        placeholder={p.placeholder}
        {...describedBy(id, p.hint, error)}
      >
        {p.state.values?.[p.name] ?? ""}
      </textarea>
    </FieldFrame>
  );
};

/**
 * A checkbox whose unchecked state is sent too (a hidden "false" before it: the form then always says
 * what the person chose, and a checked box's "true" comes last, which is the value read).
 */
export const Toggle: FC<ControlProps> = (p) => {
  const id = fieldId(p.name);
  const error = p.state.errors?.[p.name];
  return (
    <div class={`field check${error ? " invalid" : ""}`}>
      <input type="hidden" name={p.name} value="false" />
      <input
        id={id}
        name={p.name}
        type="checkbox"
        value="true"
        checked={p.state.values?.[p.name] === "true"}
        {...describedBy(id, p.hint, error)}
      />
      <label for={id}>{p.label}</label>
      {p.hint && <p class="hint" id={`${id}-hint`}>{p.hint}</p>}
      {error && <p class="error" id={`${id}-error`}>{error}</p>}
    </div>
  );
};

// ---------------------------------------------------------------------------------------------------
// Display

/** A row of key figures: each a label, a value and an optional note below. */
export const Stats: FC<{ label: string; items: { label: string; value: Child; note?: Child }[] }> = (
  { label, items },
) => (
  <dl class="stats" aria-label={label}>
    {items.map((s) => (
      <div class="stat">
        <dt>{s.label}</dt>
        <dd>
          <span class="stat-value">{s.value}</span>
          {s.note && <span class="stat-note">{s.note}</span>}
        </dd>
      </div>
    ))}
  </dl>
);

const TO = " to ";

/** "before → after" for a figure (read as "before to after"). */
export const Change: FC<{ before: Child; after: Child }> = ({ before, after }) => (
  <>
    <span class="before">{before}</span>
    <span class="arrow" aria-hidden="true">→</span>
    <span class="visually-hidden">{TO}</span>
    <span class="after">{after}</span>
  </>
);

/**
 * A map of a run: its PNG, opening the interactive HTML map (`html`, a sandboxed page the runs service
 * keeps) in its own tab, and the same page to explore inline on demand (a sandboxed frame, loaded only
 * when opened).
 */
export const MapFigure: FC<{ title: string; png: string; html?: string; alt: string; caption?: Child }> = (
  p,
) => (
  <figure class="map">
    <img src={p.png} alt={p.alt} width={800} height={600} decoding="async" />
    <figcaption>
      <span class="map-title">{p.title}</span>
      {p.caption && <span class="muted">{p.caption}</span>}
      <span class="map-links">
        {p.html && (
          <a href={p.html} target="_blank" rel="noopener">
            Interactive map<span class="visually-hidden">: {p.title} (opens in a new tab)</span>
          </a>
        )}
        <a href={p.png} download>
          PNG<span class="visually-hidden">: {p.title}</span>
        </a>
      </span>
    </figcaption>
    {p.html && (
      <details class="map-live">
        <summary>
          Explore here<span class="visually-hidden">: {p.title}</span>
        </summary>
        <iframe src={p.html} title={`${p.title} (interactive)`} sandbox="allow-scripts" loading="lazy">
        </iframe>
      </details>
    )}
  </figure>
);

/** A download link for one of a run's CSV files. */
export const CsvLink: FC<{ href: string; label: string }> = ({ href, label }) => (
  <a class="btn btn-secondary btn-small download" href={href} download>
    {label}
  </a>
);
