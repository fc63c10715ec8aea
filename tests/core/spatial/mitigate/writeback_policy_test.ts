import assert from "node:assert/strict";
import {
  createdByTask,
  recordedMappingFields,
  writebackRefusal,
} from "../../../../core/spatial/mitigate/writeback_policy.ts";

/** A task after a mitigation that read pred_v2 (y_pred), score (y_pred_prob) and the default names. */
const task = {
  _id: "loans",
  status: "pending",
  mapping: { y_true: "truth_later" },
  last_mitigation: {
    kind: "relabel",
    mapping: {
      lat: "lat",
      lon: "lon",
      y_true: "y_true",
      y_pred: "pred_v2",
      region_ids: "region_ids",
      y_pred_prob: "score",
    },
  },
  last_writeback: null,
  writeback_fields: ["pred_fair"],
};

Deno.test("writeback policy: _id, default names and every recorded mapping field are refused by name", () => {
  for (const field of ["_id", "lat", "y_pred", "y_pred_prob"]) {
    assert.match(writebackRefusal(task, field, null)!, /_id or a mapping key's default name/, field);
  }
  for (const field of ["pred_v2", "score", "truth_later"]) {
    assert.match(writebackRefusal(task, field, null)!, /a mapping of the task uses/, field);
  }
  // by name, even when this task wrote it before, and whatever the documents hold
  assert.notEqual(writebackRefusal({ ...task, writeback_fields: ["score"] }, "score", null), null);
  assert.deepEqual(
    [...recordedMappingFields(task)].sort(),
    ["lat", "lon", "pred_v2", "region_ids", "score", "truth_later", "y_true"],
  );
  assert.deepEqual([...recordedMappingFields({ _id: "t", mapping: null, other: 3 })], []);
});

Deno.test("writeback policy: a field a listed document holds is refused unless this task created it", () => {
  assert.equal(writebackRefusal(task, "fresh", null), null);
  assert.equal(
    writebackRefusal(task, "income", "65f0a1"),
    "is held already by document '65f0a1' and no write-back of this task created it",
  );
  assert.equal(writebackRefusal(task, "pred_fair", "65f0a1"), null);
  assert.equal(createdByTask(task, "pred_fair"), true);
  assert.equal(createdByTask(task, "income"), false);
  assert.equal(createdByTask({ _id: "t" }, "pred_fair"), false);
});
