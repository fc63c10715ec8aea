/** The import route's handler: the request's names, format and streamed body in, the import's report out. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./datasets.routes.ts";
import { formatOf } from "../../core/ingest/records.ts";
import { BadRequestError } from "../../core/errors.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import { importText } from "../../services/datasets/import.ts";

/** Where the request names the target (the loc of a refused name). */
const TARGET_LOC = { db: ["path", "database_name"], collection: ["path", "collection_name"] };

/** Text chunks of a request body. */
async function* textChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<string> {
  if (!body) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}

export const importDataset: AppRouteHandler<typeof routes.importDataset> = async (c) => {
  const { database_name, collection_name } = c.req.valid("param");
  const query = c.req.valid("query");
  const target = { db: database_name, collection: collection_name };
  // the schema checks the names' form; this adds Tessera's own database, which only the config names
  checkImportTarget(target, c.var.deps.config.TESSERA_DB, TARGET_LOC);
  const format = query.format ?? formatOf(c.req.header("content-type"));
  if (!format) {
    throw new BadRequestError(
      "unknown upload format: send Content-Type text/csv, application/x-ndjson or application/json, " +
        "or ?format=csv|ndjson|json",
    );
  }
  const result = await importText(c.var.deps, {
    target,
    format,
    text: textChunks(c.req.raw.body),
    replace: query.replace === "true",
  });
  return c.json(result, 200);
};
