/**
 * The region tables' frame: the rows in the order the address asks for (sorting by links: works without
 * script, and the URL says the order), significant ones marked, at most 500 of them, and the section with
 * the download of every region's numbers.
 */
import type { Child, FC } from "hono/jsx";
import { type Column, DataTable } from "../../shared/components.tsx";
import { int, pp } from "../formats.ts";
import { csvHref } from "../hrefs.ts";
import type { RegionStat } from "../run_views.ts";
import type { Sort, SortKey } from "../sort.ts";
import { CsvLink } from "./review_parts.tsx";
import { FROZEN_FIELD, SETTINGS_FORM_ID } from "../settings_request.ts";

/** One row of a region table: its sort values (what its cells show is the table's own). */
interface Row {
  values: Partial<Record<SortKey, number | null>>;
  signif: boolean;
}

/** Significant first, then the smallest p-value, then the largest difference, then by region id. */
function defaultOrder(a: Row, b: Row) {
  const n = (
    v: number | null | undefined,
    fallback: number,
  ) => (v === null || v === undefined ? fallback : v);
  return Number(b.signif) - Number(a.signif) ||
    n(a.values.p, 2) - n(b.values.p, 2) ||
    Math.abs(n(b.values.diff, 0)) - Math.abs(n(a.values.diff, 0)) ||
    n(a.values.region, 0) - n(b.values.region, 0);
}

function sortRows<R extends Row>(rows: R[], sort: Sort): R[] {
  if (sort.key === "default") return [...rows].sort(defaultOrder);
  const k = sort.key, sign = sort.dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a.values[k], y = b.values[k];
    if (x === null || x === undefined) return y === null || y === undefined ? defaultOrder(a, b) : 1;
    if (y === null || y === undefined) return -1;
    return sign * (x - y) || defaultOrder(a, b);
  });
}

/** A column header that sorts by its key: a link to the same page in that order, and `aria-sort`. */
const SortHead: FC<{ label: Child; k: SortKey; sort: Sort; num?: boolean; first?: "asc" | "desc" }> = (
  { label, k, sort, num, first = "asc" },
) => {
  const current = sort.key === k;
  const next = current ? (sort.dir === "asc" ? "desc" : "asc") : first;
  const ariaSort = current ? (sort.dir === "asc" ? "ascending" : "descending") : undefined;
  return (
    <th scope="col" class={num ? "num" : undefined} aria-sort={ariaSort}>
      <a class="sort" href={`?sort=${k}&dir=${next}#regions`}>
        {label}
        <span class="sort-mark" aria-hidden="true">{current ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}</span>
        <span class="visually-hidden">{`, sort ${next === "asc" ? "ascending" : "descending"}`}</span>
      </a>
    </th>
  );
};

export const Yes: FC<{ on: boolean }> = ({ on }) =>
  on ? <span class="badge badge-signif">Yes</span> : <span class="muted">No</span>;

/** A signed difference, tinted red above the overall rate and blue below (the maps' colours). */
export const Diff: FC<{ d: number | null }> = ({ d }) => (
  <span class={d === null || Math.abs(d) < 0.0005 ? undefined : d > 0 ? "above" : "below"}>{pp(d)}</span>
);

/** The note under the table: what the order is and how to change it. */
const SortNote: FC<{ sort: Sort }> = ({ sort }) => (
  <p class="hint">
    {sort.key === "default"
      ? "Significant regions first, then by p-value. Select a column heading to sort by it."
      : (
        <>
          Sorted by the selected column. <a href="?#regions">Significant first</a>
        </>
      )}
  </p>
);

/** A column of a region table whose header sorts the table by `k` (first in the `first` direction). */
export const sortable = <R,>(
  sort: Sort,
  label: Child,
  k: SortKey,
  column: Omit<Column<R>, "head" | "th">,
  first?: "asc" | "desc",
): Column<R> => ({
  ...column,
  th: <SortHead label={label} k={k} sort={sort} num={column.num} first={first} />,
});

/**
 * Rows a region table shows, the first in the order asked for; the CSV download holds every region. A
 * table of thousands of regions holds the event loop to render and is no page to read.
 */
export const MAX_TABLE_REGIONS = 500;

/** The regions in the order asked for, significant ones marked, with the note on the order below. */
export function RegionTable<R extends Row>(
  p: { label: string; class?: string; rows: R[]; sort: Sort; columns: Column<R>[] },
) {
  const sorted = sortRows(p.rows, p.sort);
  return (
    <>
      <DataTable
        label={p.label}
        class={p.class}
        caption="Regions"
        captionHidden
        rows={sorted.slice(0, MAX_TABLE_REGIONS)}
        rowClass={(r) => (r.signif ? "signif" : undefined)}
        columns={p.columns}
      />
      {sorted.length > MAX_TABLE_REGIONS && (
        <p class="hint cut">
          The first {int(MAX_TABLE_REGIONS)} of {int(sorted.length)}{" "}
          regions in this order; the CSV download holds every region.
        </p>
      )}
      <SortNote sort={p.sort} />
    </>
  );
}

/** A part of a result under its own heading, the downloads of its numbers beside the heading. */
export const DownloadSection: FC<{
  id: string;
  title: Child;
  anchor?: string;
  downloads: Child;
  children?: Child;
}> = (p) => (
  <section aria-labelledby={p.id} id={p.anchor}>
    <div class="section-head">
      <h3 id={p.id}>{p.title}</h3>
      {p.downloads}
    </div>
    {p.children}
  </section>
);

/** The regions' section (`#regions`, where the sort links return to), with the download of its numbers. */
export const RegionsSection: FC<
  { task: string; runId: string; title: string; more?: Child; children?: Child }
> = (
  p,
) => (
  <DownloadSection
    id="regions-title"
    anchor="regions"
    title={p.title}
    downloads={
      <>
        <CsvLink href={csvHref(p.task, p.runId, "regions")} label="Download region statistics (CSV)" />
        {p.more}
      </>
    }
  >
    {p.children}
  </DownloadSection>
);

/** The first columns of both region tables: the region, which names the row, and its individuals. */
export const regionColumns = <R extends { s: RegionStat }>(sort: Sort): Column<R>[] => [
  sortable<R>(sort, "Region", "region", { num: true, rowHead: true, cell: (r) => r.s.region_id }),
  sortable<R>(sort, "Individuals", "n", { num: true, cell: (r) => int(r.s.n) }, "desc"),
];

/**
 * The last column of both region tables, "Freeze": a box that belongs to the settings form (`form=`),
 * ticked for a region the next mitigation must not touch (frozen_regions). It works without script, and
 * the form keeps the ticks when it comes back.
 */
export const freezeColumn = <R extends { s: RegionStat }>(frozen: ReadonlySet<number>): Column<R> => ({
  head: "Freeze",
  cell: (r) => (
    <input
      type="checkbox"
      form={SETTINGS_FORM_ID}
      name={`${FROZEN_FIELD}${r.s.region_id}`}
      checked={frozen.has(r.s.region_id)}
      aria-label={`Freeze region ${r.s.region_id}: none of its members flips`}
    />
  ),
});
