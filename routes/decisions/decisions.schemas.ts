/** The decision log's shapes (issue 37): an entry, a page of them, and the filters of the list. */
import { z } from "@hono/zod-openapi";
import { DECISION_KINDS } from "../../services/decisions/entry.ts";

const Timestamp = z.iso.datetime({ offset: true });
const EntryId = z.string().regex(/^[0-9a-f]{24}$/, "an entry_id: 24 hexadecimal digits");

export const DecisionEntry = z.object({
  entry_id: EntryId,
  at: Timestamp,
  kind: z.enum(DECISION_KINDS),
  user: z.object({ sub: z.string(), username: z.string().nullable() }),
  task: z.string().nullable(),
  dataset: z.string().nullable(),
  database: z.string().nullable(),
  run_id: z.string().nullable(),
  job_id: z.string().nullable(),
  writeback_id: z.string().nullable(),
  field: z.string().nullable(),
  counts: z.record(z.string(), z.number()),
  facts: z.record(z.string(), z.unknown()),
}).openapi("DecisionEntry");

export const DecisionPage = z.object({
  decisions: z.array(DecisionEntry),
  next: EntryId.nullable().openapi({
    description: "Pass as `before` for the next (older) page; null on the last",
  }),
}).openapi("DecisionPage");

export const DecisionQuery = z.object({
  task: z.string().min(1).optional().openapi({ description: "A task's data_collection_name" }),
  dataset: z.string().min(1).optional().openapi({ description: "A dataset's (collection's) name" }),
  user: z.string().min(1).optional().openapi({ description: "A user's sub or username" }),
  kind: z.enum(DECISION_KINDS).optional(),
  run_id: z.string().min(1).optional().openapi({ description: "Decisions on this run (write-backs of it)" }),
  job_id: z.string().min(1).optional().openapi({ description: "Decisions on this cleaning job" }),
  from: Timestamp.optional().openapi({ description: "Entries at or after this time" }),
  to: Timestamp.optional().openapi({
    description: "Entries before this time (none when it is not after `from`)",
  }),
  before: EntryId.optional().openapi({ description: "Entries older than this one (a page's `next`)" }),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
