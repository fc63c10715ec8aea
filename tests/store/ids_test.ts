import assert from "node:assert/strict";
import { ObjectId } from "mongodb";
import { idSource, newId } from "../../store/ids.ts";

Deno.test("ids: 24-hex ObjectIds whose timestamp is the creation second", () => {
  const id = idSource(() => 1_700_000_000_500)();
  assert.match(id, /^[0-9a-f]{24}$/);
  assert.equal(new ObjectId(id).getTimestamp().getTime(), 1_700_000_000_000);
  assert.ok(ObjectId.isValid(newId()));
});

Deno.test("ids: strictly increasing within one second, past a full counter and when the clock steps back", () => {
  let ms = 1_700_000_000_000;
  const next = idSource(() => ms, 4);
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push(next()); // 10 ids in a second whose counter holds 4
  ms -= 5_000; // the clock steps back
  ids.push(next());
  ms += 60_000;
  ids.push(next());
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`);
  // 10 ids with 4 per second use the seconds t, t+1 and t+2, then the clock's jump is taken as it is
  const seconds = ids.map((id) => parseInt(id.slice(0, 8), 16) - 1_700_000_000);
  assert.deepEqual(seconds, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 55]);
});
