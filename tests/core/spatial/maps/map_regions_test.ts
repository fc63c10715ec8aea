import assert from "node:assert/strict";
import { mapRegions } from "../../../../core/spatial/maps/features.ts";
import { fairMapHtml } from "../../../../core/spatial/maps/html.ts";
import { fairMapSvg } from "../../../../core/spatial/maps/svg.ts";
import type { AuditResult } from "../../../../core/spatial/types.ts";
import { fourRegions, stat } from "./fixtures.ts";

/**
 * Ten regions of 100 individuals, 300 positive in all (overall rate 0.3); by hand, |rate − 0.3|:
 * r0 0.30 → 0, r1 0.50 → 0.2 (significant, p 0.02), r2 0.10 → 0.2, r3 0.35 → 0.05, r4 0.00 → 0.3
 * (significant, p 0.001), r5 0.25 → 0.05, r6 0.40 → 0.1, r7 0.20 → 0.1, r8 0.55 → 0.25, r9 empty (no rate).
 */
function tenRegions(): AuditResult {
  const positives = [30, 50, 10, 35, 0, 25, 40, 20, 55];
  const stats = positives.map((p, idx) =>
    stat(idx, 100, p, 0, idx === 1 || idx === 4, idx === 4 ? 0.001 : 0.02)
  );
  stats.push(stat(9, 0, 0, 0, false));
  // overall rate over the 900 individuals in regions: 265 / 900 is not 0.3, so N and P are set to say 0.3
  return {
    sbi_score: 0,
    signif_thresh: 0.1,
    total_signif_regions: 2,
    stats,
    n_individuals: 1000,
    n_positives: 300,
  };
}

Deno.test("mapRegions: every region up to the cap; past it the significant first, then the farthest from the overall rate", () => {
  const audit = tenRegions();
  assert.deepEqual(mapRegions(audit), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // 4 of 10: r4 (significant, p 0.001), r1 (significant, p 0.02), then r8 (0.25 off), then r2 (0.2 off)
  assert.deepEqual(mapRegions(audit, 4), [1, 2, 4, 8]);
  // 6: then r6 and r7 (0.1 off each), tied, by idx
  assert.deepEqual(mapRegions(audit, 6), [1, 2, 4, 6, 7, 8]);
  // the empty region comes last of all
  assert.deepEqual(mapRegions(audit, 9), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
});

Deno.test("maps with regions left out say how many of how many are drawn, and why", async () => {
  const { regions, audit } = fourRegions();
  const html = await fairMapHtml(regions, audit, { capped: 1 });
  assert.match(
    html,
    /3 of 4 regions drawn: the significant ones first, then those farthest from the overall rate/,
  );
  assert.doesNotMatch(html, /have no geometry/);
  assert.match(fairMapSvg(regions, audit, { capped: 1 }, null), />3 of 4 regions drawn</);
  assert.doesNotMatch(fairMapSvg(regions, audit, {}, null), /regions drawn/);
});
