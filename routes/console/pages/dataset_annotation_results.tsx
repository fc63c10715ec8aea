/** An annotation record's result as tables a person reads: one view per annotation function. */
import type { FC } from "hono/jsx";
import { TableRegion, Value } from "../components.tsx";
import type { AnnotationRecord } from "../../../services/annotation/runs.ts";
import type { ColumnType } from "../../../core/annotate/semantic_types.ts";
import type { ColumnProfile } from "../../../core/annotate/profile.ts";
import type { ConceptMapping } from "../../../core/annotate/concept_mapping.ts";
import type { ColumnPii } from "../../../core/annotate/pii_scan.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const num = (x: number | null | undefined) => x === null || x === undefined ? "—" : String(+x.toFixed(4));

const SemanticTypes: FC<{ columns: ColumnType[] }> = ({ columns }) => (
  <TableRegion label="Semantic types">
    <table>
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">Type</th>
          <th scope="col" class="num">Confidence</th>
          <th scope="col">Rule</th>
          <th scope="col">Examples</th>
        </tr>
      </thead>
      <tbody>
        {columns.map((c) => (
          <tr>
            <th scope="row">{c.column}</th>
            <td>
              <span class="type">{c.type}</span>
            </td>
            <td class="num">{pct(c.confidence)}</td>
            <td>{c.evidence.rule}</td>
            <td>
              <Value v={c.evidence.examples.slice(0, 3)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </TableRegion>
);

const Profile: FC<{ columns: ColumnProfile[] }> = ({ columns }) => (
  <TableRegion label="Profile">
    <table>
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">Kind</th>
          <th scope="col" class="num">Count</th>
          <th scope="col" class="num">Missing</th>
          <th scope="col" class="num">Distinct</th>
          <th scope="col" class="num">Min</th>
          <th scope="col" class="num">Mean</th>
          <th scope="col" class="num">Max</th>
          <th scope="col" class="num">Outliers</th>
          <th scope="col">Top values</th>
        </tr>
      </thead>
      <tbody>
        {columns.map((c) => (
          <tr>
            <th scope="row">{c.column}</th>
            <td>{c.kind}</td>
            <td class="num">{c.count}</td>
            <td class="num">{c.missing}</td>
            <td class="num">{c.distinct}</td>
            <td class="num">{num(c.numeric?.min)}</td>
            <td class="num">{num(c.numeric?.mean)}</td>
            <td class="num">{num(c.numeric?.max)}</td>
            <td class="num">{c.outliers ? c.outliers.count : "—"}</td>
            <td>{c.top ? c.top.map((t) => `${String(t.value)} (${t.count})`).join(", ") : "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </TableRegion>
);

const Mapping: FC<{ result: ConceptMapping }> = ({ result }) => (
  <>
    <h3>Proposed mapping to {result.data_model_id}</h3>
    <TableRegion label="Proposed mapping">
      <table>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Property</th>
            <th scope="col" class="num">Score</th>
          </tr>
        </thead>
        <tbody>
          {result.mapping.map((m) => (
            <tr>
              <th scope="row">{m.column}</th>
              <td>{m.property}</td>
              <td class="num">{num(m.score)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
    {result.unmapped.length > 0 && <p>Not mapped: {result.unmapped.join(", ")}</p>}
    <h3>Candidate properties</h3>
    <TableRegion label="Candidate properties">
      <table>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Semantic type</th>
            <th scope="col">Candidates (score: name, type, description)</th>
          </tr>
        </thead>
        <tbody>
          {result.columns.map((c) => (
            <tr>
              <th scope="row">{c.column}</th>
              <td>{c.semantic_type}</td>
              <td>
                {c.candidates.length
                  ? c.candidates.map((k) =>
                    `${k.property} ${num(k.score)} (${num(k.name_score)}, ${num(k.type_score)}, ${
                      num(k.description_score)
                    })`
                  ).join("; ")
                  : "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  </>
);

const Pii: FC<{ columns: ColumnPii[] }> = ({ columns }) => (
  <TableRegion label="PII findings">
    <table>
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">Personal data</th>
          <th scope="col">Findings (kind: count, share, masked examples)</th>
        </tr>
      </thead>
      <tbody>
        {columns.map((c) => (
          <tr>
            <th scope="row">{c.column}</th>
            <td>{c.pii ? "yes" : "no"}</td>
            <td>
              {c.findings.length
                ? c.findings.map((f) => `${f.kind}: ${f.count}, ${pct(f.share)} (${f.examples.join(", ")})`)
                  .join("; ")
                : "—"}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </TableRegion>
);

/** The result of one annotation record, by its function. */
export const AnnotationResultView: FC<{ record: AnnotationRecord }> = ({ record }) => {
  const r = record.result as unknown as Record<string, unknown>;
  switch (record.annotation_function) {
    case "semantic_types":
      return <SemanticTypes columns={r.columns as ColumnType[]} />;
    case "profile":
      return <Profile columns={r.columns as ColumnProfile[]} />;
    case "concept_mapping":
      return <Mapping result={record.result as ConceptMapping} />;
    case "pii_scan":
      return <Pii columns={r.columns as ColumnPii[]} />;
    default:
      return <Value v={record.result} />;
  }
};
