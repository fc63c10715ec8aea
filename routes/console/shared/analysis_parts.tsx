/**
 * Pieces the cleaning and valuation pages share: their stylesheet and script (served by Tessera, loaded
 * from the page's body so the common layout stays as it is), a form's busy message, a row of key figures,
 * a fieldset of checkboxes with its error, and number formats.
 */
import type { Child, FC } from "hono/jsx";
import { assetUrl } from "./assets.ts";

/** The stylesheet and script of these pages (a stylesheet link is allowed in the body, and applies at once). */
export const AnalysisAssets: FC = () => (
  <>
    <link rel="stylesheet" href={assetUrl("cleaning-valuation.css")} />
    <script type="module" src={assetUrl("cleaning-valuation.js")}></script>
  </>
);

/**
 * What a form says while its request is under way (shown by the script on submit; the form is then sent
 * once). A polite live region, so a screen reader hears it too.
 */
export const Busy: FC<{ children?: Child }> = ({ children }) => (
  <p class="busy" data-busy hidden role="status">
    <span class="spinner" aria-hidden="true"></span>
    <span>{children}</span>
  </p>
);

/** Key figures in a row: a number and what it counts. */
export const Stats: FC<{ items: [string, Child][] }> = ({ items }) => (
  <ul class="stats">
    {items.map(([what, n]) => (
      <li>
        <span class="n">{n}</span>
        <span class="what">{what}</span>
      </li>
    ))}
  </ul>
);

/** A group of checkboxes under one legend, with a hint and an error tied to the group. */
export const CheckGroup: FC<{
  legend: string;
  name: string;
  id: string;
  options: { value: string; label: string; checked: boolean }[];
  hint?: string;
  error?: string;
}> = ({ legend, name, id, options, hint, error }) => {
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <fieldset
      class={error ? "group invalid" : "group"}
      id={id}
      aria-describedby={described || undefined}
    >
      <legend>{legend}</legend>
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p class="error" id={`${id}-error`}>{error}</p>}
      <div class="checks">
        {options.map((o, i) => (
          <div class="field check">
            <input
              type="checkbox"
              id={`${id}-${i}`}
              name={name}
              value={o.value}
              checked={o.checked}
              aria-invalid={error ? "true" : undefined}
            />
            <label for={`${id}-${i}`}>{o.label}</label>
          </div>
        ))}
      </div>
    </fieldset>
  );
};

/** A whole count with thousands separators. */
export const count = (n: unknown) => (typeof n === "number" ? n.toLocaleString("en") : "—");

/** A share as a percentage with one decimal ("85.5 %"). */
export const percent = (x: number) => `${(x * 100).toFixed(1)} %`;

/** Three decimals, without a minus before a zero ("-0.000"). */
export const fmt3 = (v: number) => (Math.abs(v) < 0.0005 ? 0 : v).toFixed(3);
