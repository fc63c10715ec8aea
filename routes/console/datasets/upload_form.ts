/**
 * The upload form, read as it streams: its fields come before the file (the browser sends them in the
 * form's order), so the CSRF token and the target's names are known before the first byte of the file
 * is read; the file part is left to stream into the import.
 */
import { type FormPart, multipartParts, partText } from "./multipart.ts";
import { importTargetProblems } from "../../../core/ingest/import_target.ts";
import { formatOfFileName, type UploadFormat } from "../../../core/ingest/records.ts";

/** The form up to its file: the fields, the CSRF token, the file part, and the parts after it. */
export interface UploadHead {
  values: Record<string, string>;
  csrf: string | undefined;
  file: FormPart | null;
  rest: AsyncGenerator<FormPart>;
}

/** Reads the form's fields up to its `file` part (an unknown file field is skipped). */
export async function readUploadHead(body: ReadableStream<Uint8Array> | null, boundary: string) {
  const rest = multipartParts(body, boundary);
  const head: UploadHead = { values: {}, csrf: undefined, file: null, rest };
  // by hand, not `for await`: leaving that loop at the file would close the reader the file streams from
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    const part = next.value;
    if (part.filename !== null) {
      if (part.name === "file") {
        head.file = part;
        break;
      }
      continue;
    }
    const text = await partText(part);
    if (part.name === "_csrf") head.csrf = text;
    else head.values[part.name] = text;
  }
  return head;
}

/** Reads the rest of a form so the browser gets the answer after it has finished sending. */
export async function drain(parts: AsyncGenerator<FormPart>): Promise<void> {
  try {
    for await (const _ of parts);
  } catch {
    // a malformed rest changes nothing: the answer is already decided
  }
}

/** A dataset name from a file's name: its stem, with characters a name cannot hold replaced by '_'. */
export function nameFromFile(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const stem = base.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^[^A-Za-z0-9]+/, "");
  return stem.slice(0, 120);
}

/** Where the upload goes (database, dataset name, format), or the form's errors by field. */
export type UploadTarget =
  | { ok: true; db: string; name: string; filename: string; format: UploadFormat; file: FormPart }
  | { ok: false; errors: Record<string, string> };

/** The upload's target from its fields and file name, checked as the import checks it. */
export function uploadTarget(head: UploadHead, tesseraDb: string): UploadTarget {
  const { values, file } = head;
  const errors: Record<string, string> = {};
  const db = (values.database ?? "").trim();
  const filename = file?.filename ?? "";
  const name = (values.name ?? "").trim() || nameFromFile(filename);
  const format = filename ? formatOfFileName(filename) : null;
  if (!filename) errors.file = "Choose a file to upload.";
  else if (!format) errors.file = "Use a .csv, .tsv, .ndjson, .jsonl or .json file.";
  const problems = importTargetProblems({ db, collection: name }, tesseraDb);
  const sentence = (s: string) => `${s[0].toUpperCase()}${s.slice(1)}.`;
  if (!db) errors.database = "Enter a database name.";
  else if (problems.db) errors.database = sentence(problems.db);
  if (filename && !name) errors.name = "Enter a dataset name.";
  else if (name && problems.collection) {
    errors[values.name?.trim() ? "name" : "file"] = sentence(problems.collection);
  }
  if (Object.keys(errors).length || !file || !format) return { ok: false, errors };
  return { ok: true, db, name, filename, format, file };
}
