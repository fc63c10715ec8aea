/**
 * The review report of a kept run as one HTML document (`GET .../runs/{run_id}/report`, and the console's
 * link beside each run): no script, no stylesheet or image from elsewhere (the maps are the run's own PNGs,
 * inline as data URLs), laid out to print on A4 from a browser. What it shows: services/spatial/run_report.ts.
 */
import type { Child, FC } from "hono/jsx";
import type { RunReport } from "../../services/spatial/run_report.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown, digits = 4) => (typeof v === "number" ? String(Number(v.toFixed(digits))) : "—");
const text = (
  v: unknown,
) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

const STYLE =
  `body{font:14px/1.45 system-ui,sans-serif;color:#111;max-width:60rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;border-bottom:1px solid #999;margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #bbb;padding:.2rem .5rem;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dt{font-weight:600}figure{margin:.8rem 0;break-inside:avoid}img{max-width:100%;height:auto}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}table,figure{break-inside:avoid}}`;

const Pairs: FC<{ rows: [string, Child][] }> = ({ rows }) => (
  <dl>
    {rows.map(([k, v]) => (
      <>
        <dt>{k}</dt>
        <dd>{v}</dd>
      </>
    ))}
  </dl>
);

/** An audit's summary and its significant regions. */
const Audit: FC<{ title: string; a: Obj }> = ({ title, a }) => {
  const signif = (Array.isArray(a.stats) ? a.stats : []).filter((s) => isObj(s) && s.is_signif) as Obj[];
  return (
    <section>
      <h2>{title}</h2>
      <Pairs
        rows={[
          ["SBI", num(a.sbi_score)],
          ["Significance threshold", num(a.signif_thresh)],
          [
            "Significant regions",
            `${text(a.total_signif_regions)}${
              signif.length ? `: ${signif.map((s) => s.region_id).join(", ")}` : ""
            }`,
          ],
          ["Individuals audited", text(a.n_individuals)],
        ]}
      />
    </section>
  );
};

/** Every PNG map or chart of the answer (top level and inside its audits), inline. */
function images(answer: Obj): [string, string][] {
  const out: [string, string][] = [];
  const take = (o: Obj, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      if (
        typeof v === "string" && /_(image|chart_before|chart_after)$/.test(k) && /^[A-Za-z0-9+/=]+$/.test(v)
      ) {
        out.push([`${prefix}${k.replaceAll("_", " ")}`, v]);
      }
    }
  };
  take(answer, "");
  for (const k of ["audit_before_mitigation", "audit_after_mitigation"]) {
    if (isObj(answer[k])) take(answer[k] as Obj, k.startsWith("audit_before") ? "before: " : "after: ");
  }
  return out;
}

const Metrics: FC<{ before: unknown; after: unknown }> = ({ before, after }) => {
  if (!isObj(before) || !isObj(after)) return <p>No y_true: no metrics.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Metric</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {["accuracy", "precision", "recall", "f1"].map((m) => (
          <tr>
            <th scope="row">{m}</th>
            <td class="n">{num(before[m])}</td>
            <td class="n">{num(after[m])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};

const Flips: FC<{ rows: unknown }> = ({ rows }) => {
  const flipped = (Array.isArray(rows) ? rows : []).filter((r) => isObj(r) && Number(r.n_flips) > 0) as Obj[];
  if (!flipped.length) return <p>No region has a flip.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Region</th>
          <th>Flips</th>
          <th>To positive</th>
          <th>To negative</th>
        </tr>
      </thead>
      <tbody>
        {flipped.map((r) => (
          <tr>
            <th scope="row">{text(r.region_id)}</th>
            <td class="n">{text(r.n_flips)}</td>
            <td class="n">{text(r.n_to_positive)}</td>
            <td class="n">{text(r.n_to_negative)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};

/** The whole report. */
export const RunReportPage: FC<{ report: RunReport }> = ({ report }) => {
  const { task, run, decisions } = report, a = run.answer as Obj, meta = run.run;
  const request = isObj(meta.request) ? meta.request : {};
  const mitigation = meta.kind !== "audit";
  const { mapping, ...settings } = request;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{`Review report: ${task.name}, run ${run.run_id}`}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <h1>Review report</h1>
        <Pairs
          rows={[
            ["Task (collection)", task.name],
            ["Database", task.databaseName],
            ["Task status", text(task.status)],
            ["Run", `${run.run_id} (${meta.kind})`],
            ["Run at", `${meta.created_at} by ${text(meta.requested_by)}`],
            ["Report made", report.madeAt],
          ]}
        />
        <h2>Settings</h2>
        <Pairs rows={Object.entries(settings).map(([k, v]) => [k, text(v)])} />
        <h2>Field mapping</h2>
        <Pairs
          rows={Object.entries(isObj(mapping) ? mapping : task.mapping ?? {}).map(([k, v]) => [k, text(v)])}
        />
        {mitigation && (
          <>
            <h2>Constraints</h2>
            <Pairs
              rows={[
                [
                  "Frozen regions",
                  Array.isArray(a.frozen_regions) && a.frozen_regions.length
                    ? a.frozen_regions.join(", ")
                    : "none",
                ],
                [
                  "Most flips per region",
                  text(a.max_flips_per_region ?? null) === "—" ? "no cap" : text(a.max_flips_per_region),
                ],
                ["Flip budget", text(a.flip_budget)],
                ["New positives window", text(a.new_positives_window)],
              ]}
            />
            <h2>Solver</h2>
            <Pairs
              rows={[
                ["Status", `${text(a.solver_status_code)}: ${text(a.solver_status_message)}`],
                ["Detail", text(a.solver_detail)],
                ["Objective", num(a.objective, 8)],
                ["Bound", num(a.bound, 8)],
                ["Gap", num(a.gap, 8)],
                ["Flips", text(a.n_flips)],
                ["Positive rate", `${num(a.positive_rate_before)} → ${num(a.positive_rate_after)}`],
              ]}
            />
            <h2>Metrics</h2>
            <Metrics before={a.metrics_before} after={a.metrics_after} />
          </>
        )}
        {mitigation
          ? (
            <>
              <Audit
                title="Audit before"
                a={isObj(a.audit_before_mitigation) ? a.audit_before_mitigation : {}}
              />
              <Audit
                title="Audit after"
                a={isObj(a.audit_after_mitigation) ? a.audit_after_mitigation : {}}
              />
              <h2>Flips per region</h2>
              <Flips rows={a.n_flips_per_region} />
            </>
          )
          : <Audit title="Audit" a={a} />}
        <h2>Maps</h2>
        {images(a).map(([name, png]) => (
          <figure>
            <img src={`data:image/png;base64,${png}`} alt={name} />
            <figcaption>{name}</figcaption>
          </figure>
        ))}
        <h2>Decisions on this run</h2>
        {decisions.length
          ? (
            <table>
              <thead>
                <tr>
                  <th>When</th>
                  <th>Who</th>
                  <th>Decision</th>
                  <th>Documents</th>
                </tr>
              </thead>
              <tbody>
                {decisions.map((d) => (
                  <tr>
                    <td>{d.at}</td>
                    <td>{d.user.username ?? d.user.sub}</td>
                    <td>
                      {`${
                        d.kind === "writeback" ? "write-back into" : "undo of the write-back into"
                      } field ${d.field}`}
                    </td>
                    <td class="n">{documents(d.counts)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
          : <p>No decision on this run is recorded: its predictions were not written back.</p>}
      </body>
    </html>
  );
};

/** What a decision did to the documents, in words. */
const documents = (c: Record<string, number>) =>
  c.restored === undefined
    ? `${c.modified ?? 0} changed of ${c.matched ?? 0}`
    : `${c.restored} restored, ${c.skipped ?? 0} skipped (changed since)`;

/** The report's policy: it loads nothing (inline style, data images), runs nothing, and frames nothing. */
export const REPORT_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";

/** The report as the text of one HTML document. */
export async function reportHtml(report: RunReport): Promise<string> {
  return "<!DOCTYPE html>" + (await (<RunReportPage report={report} />).toString());
}
