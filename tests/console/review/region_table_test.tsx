/** A region table shows the first MAX_TABLE_REGIONS regions of the order asked for, and says so. */
import assert from "node:assert/strict";
import { MAX_TABLE_REGIONS, RegionTable } from "../../../routes/console/review/views/region_table.tsx";

/** 600 regions: region r has p-value (r % 100) / 100, every 50th significant. */
const rows = Array.from({ length: 600 }, (_, r) => ({
  values: { region: r, p: (r % 100) / 100 },
  signif: r % 50 === 0,
}));
type R = typeof rows[number];
const columns = [{ head: "Region", num: true, rowHead: true, cell: (r: R) => r.values.region }];

/** The region ids of the table's body rows, in order. */
const shownIds = (html: string) =>
  [...html.matchAll(/<th[^>]*scope="row"[^>]*>(\d+)<\/th>/g)].map((m) => Number(m[1]));

Deno.test("region table: 600 regions show the first 500 of the order, with a note; the CSV keeps all", async () => {
  assert.equal(MAX_TABLE_REGIONS, 500);
  const html = String(
    await <RegionTable label="Regions" rows={rows} sort={{ key: "default", dir: "asc" }} columns={columns} />,
  );
  const ids = shownIds(html);
  assert.equal(ids.length, 500);
  // significant first (regions 0, 50, ..., 550: p = 0 or 0.5), then by p-value, then by region id
  assert.deepEqual(ids.slice(0, 12), [0, 100, 200, 300, 400, 500, 50, 150, 250, 350, 450, 550]);
  assert.deepEqual(ids.slice(12, 17), [1, 101, 201, 301, 401]);
  assert.match(html, /The first 500 of 600 regions in this order; the CSV download\s+holds every region\./);
  const byRegion = String(
    await <RegionTable label="Regions" rows={rows} sort={{ key: "region", dir: "desc" }} columns={columns} />,
  );
  assert.deepEqual(shownIds(byRegion).slice(0, 3), [599, 598, 597]);
});

Deno.test("region table: 500 regions or fewer show every one, without the note", async () => {
  const html = String(
    await (
      <RegionTable
        label="Regions"
        rows={rows.slice(0, 500)}
        sort={{ key: "default", dir: "asc" }}
        columns={columns}
      />
    ),
  );
  assert.equal(shownIds(html).length, 500);
  assert.doesNotMatch(html, /The first 500/);
});
