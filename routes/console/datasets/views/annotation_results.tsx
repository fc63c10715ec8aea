/** An annotation record's result as tables a person reads: one view per annotation function. */
import type { FC } from "hono/jsx";
import { type Column, DataTable, Value } from "../../shared/components.tsx";
import type { AnnotationRecord } from "../../../../services/annotation/runs.ts";
import type { ColumnType } from "../../../../core/annotate/semantic_types.ts";
import type { ColumnProfile } from "../../../../core/annotate/profile.ts";
import type { ConceptMapping } from "../../../../core/annotate/concept_mapping.ts";
import type { ColumnPii } from "../../../../core/annotate/pii_scan.ts";

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const num = (x: number | null | undefined) => x === null || x === undefined ? "—" : String(+x.toFixed(4));

/** A list of findings joined by "; ", or a dash when there is none. */
function listed<T>(items: T[], text: (item: T) => string): string {
  return items.length ? items.map(text).join("; ") : "—";
}

/** A result table: one row per column of the dataset, named by it, then the function's findings. */
function ByColumn<T extends { column: string }>(p: { label: string; rows: T[]; columns: Column<T>[] }) {
  const name: Column<T> = { head: "Column", rowHead: true, cell: (c) => c.column };
  return <DataTable label={p.label} rows={p.rows} columns={[name, ...p.columns]} />;
}

const SemanticTypes: FC<{ columns: ColumnType[] }> = ({ columns }) => (
  <ByColumn
    label="Semantic types"
    rows={columns}
    columns={[
      { head: "Type", cell: (c) => <span class="type">{c.type}</span> },
      { head: "Confidence", num: true, cell: (c) => pct(c.confidence) },
      { head: "Rule", cell: (c) => c.evidence.rule },
      { head: "Examples", cell: (c) => <Value v={c.evidence.examples.slice(0, 3)} /> },
    ]}
  />
);

const Profile: FC<{ columns: ColumnProfile[] }> = ({ columns }) => (
  <ByColumn
    label="Profile"
    rows={columns}
    columns={[
      { head: "Kind", cell: (c) => c.kind },
      { head: "Count", num: true, cell: (c) => c.count },
      { head: "Missing", num: true, cell: (c) => c.missing },
      { head: "Distinct", num: true, cell: (c) => c.distinct },
      { head: "Min", num: true, cell: (c) => num(c.numeric?.min) },
      { head: "Mean", num: true, cell: (c) => num(c.numeric?.mean) },
      { head: "Max", num: true, cell: (c) => num(c.numeric?.max) },
      { head: "Outliers", num: true, cell: (c) => (c.outliers ? c.outliers.count : "—") },
      {
        head: "Top values",
        cell: (c) => (c.top ? c.top.map((t) => `${String(t.value)} (${t.count})`).join(", ") : "—"),
      },
    ]}
  />
);

const Mapping: FC<{ result: ConceptMapping }> = ({ result }) => (
  <>
    <h3>Proposed mapping to {result.data_model_id}</h3>
    <ByColumn
      label="Proposed mapping"
      rows={result.mapping}
      columns={[
        { head: "Property", cell: (m) => m.property },
        { head: "Score", num: true, cell: (m) => num(m.score) },
      ]}
    />
    {result.unmapped.length > 0 && <p>Not mapped: {result.unmapped.join(", ")}</p>}
    <h3>Candidate properties</h3>
    <ByColumn
      label="Candidate properties"
      rows={result.columns}
      columns={[
        { head: "Semantic type", cell: (c) => c.semantic_type },
        {
          head: "Candidates (score: name, type, description)",
          cell: (c) =>
            listed(
              c.candidates,
              (k) =>
                `${k.property} ${num(k.score)} (${num(k.name_score)}, ${num(k.type_score)}, ${
                  num(k.description_score)
                })`,
            ),
        },
      ]}
    />
  </>
);

const Pii: FC<{ columns: ColumnPii[] }> = ({ columns }) => (
  <ByColumn
    label="PII findings"
    rows={columns}
    columns={[
      { head: "Personal data", cell: (c) => (c.pii ? "yes" : "no") },
      {
        head: "Findings (kind: count, share, masked examples)",
        cell: (c) =>
          listed(c.findings, (f) => `${f.kind}: ${f.count}, ${pct(f.share)} (${f.examples.join(", ")})`),
      },
    ]}
  />
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
