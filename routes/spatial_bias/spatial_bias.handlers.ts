/** The toolkit's stateless handlers: the body read in a worker and checked, the service's answer in the toolkit's shape. */
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { InvalidInputError } from "../../core/errors.ts";
import type { Ring } from "../../core/spatial/types.ts";
import type { AuditSettings } from "../../services/spatial/audit.ts";
import type { RelabelSettings } from "../../services/mitigation/settings.ts";
import { readToolkitBody, TOOLKIT_SETS, type ToolkitKind } from "../../services/spatial_bias/read_body.ts";
import {
  toolkitAudit,
  type ToolkitInput,
  toolkitRelabel,
  toolkitThreshold,
} from "../../services/spatial_bias/spatial_bias.ts";
import { jsonAnswer } from "../http/json_answer.ts";
import { deciderOf } from "../http/decider.ts";
import { checkToolkitBody } from "./spatial_bias.rules.ts";
import { toolkitMitigation, toolkitShape } from "./spatial_bias.answers.ts";

/** The longest solver time a stored route allows: a toolkit request's `work_limit: null`. */
const LONGEST_WORK_LIMIT = 3600;

/** Bytes of a block the body is gathered in: a 130 MB body is some 130 buffers to move, not 8,000 chunks. */
const BLOCK = 1 << 20;

/**
 * The body as it arrives, gathered in blocks of BLOCK bytes: each chunk copied into the block being filled
 * as it comes (a copy of at most a chunk at a time), never joined whole here (a 130 MB body joined is one
 * copy that holds the event loop some 50 ms); the worker reads the blocks.
 */
async function bodyBlocks(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array[]> {
  const blocks: Uint8Array[] = [];
  let block = new Uint8Array(BLOCK), at = 0;
  if (body) {
    for await (const chunk of body) {
      for (let from = 0; from < chunk.byteLength;) {
        const n = Math.min(BLOCK - at, chunk.byteLength - from);
        block.set(chunk.subarray(from, from + n), at);
        (at += n), (from += n);
        if (at === BLOCK) (blocks.push(block), (block = new Uint8Array(BLOCK)), (at = 0));
      }
    }
  }
  if (at) blocks.push(block.subarray(0, at));
  return blocks;
}

/** The request's body read and checked, and the service's input beside its settings. */
async function readInput<K extends ToolkitKind>(c: Context<AppEnv>, kind: K) {
  const chunks = await bodyBlocks(c.req.raw.body);
  if (!chunks.length) throw new InvalidInputError("Field required", ["body"], "missing");
  const checked = checkToolkitBody(await readToolkitBody(c.var.deps.pool, chunks, kind), kind);
  const { keep, database_name } = c.req.query() as { keep?: string; database_name?: string };
  const input: ToolkitInput = {
    columns: checked.columns,
    sets: checked.sets,
    who: deciderOf(c),
    // the run keeps the settings; the individuals are its dataset's rows
    request: Object.fromEntries(
      Object.entries(checked.body).filter(([k]) => !TOOLKIT_SETS[kind].includes(k)),
    ),
    keep: keep === "true" ? database_name ?? "toolkit" : null,
  };
  return { ...checked, input };
}

/** The audit settings of a toolkit body: the stored routes' defaults for what the toolkit has not. */
function auditSettings(
  b: { n_worlds: number; signif_level: number; equal_opp: boolean },
  polygons: Ring[] | null,
): AuditSettings {
  const { n_worlds: nWorlds, signif_level: signifLevel, equal_opp: equalOpp } = b;
  const defaults = { fullDistribution: false, mapping: undefined, seed: 42, rng: "fast" as const };
  return { nWorlds, signifLevel, equalOpp, polygons, ...defaults, includeMaps: true };
}

function relabelSettings(
  b: Parameters<typeof auditSettings>[0] & {
    approx: boolean;
    budget_constr: number;
    pr_constr: number;
    work_limit: number | null;
  },
  polygons: Ring[] | null,
): RelabelSettings {
  return {
    ...auditSettings(b, polygons),
    approx: b.approx,
    budget: b.budget_constr,
    prTol: b.pr_constr,
    // null, or more than a stored route allows (a timer cannot wait 2^31 ms or more): the longest
    workLimitSeconds: Math.min(b.work_limit ?? LONGEST_WORK_LIMIT, LONGEST_WORK_LIMIT),
  };
}

export const audit = async (c: Context<AppEnv>): Promise<Response> => {
  const { body, polygons, input } = await readInput(c, "audit");
  const answer = await toolkitAudit(c.var.deps, { ...input, ...auditSettings(body, polygons) });
  return jsonAnswer(c, toolkitShape(answer));
};

export const relabel = async (c: Context<AppEnv>): Promise<Response> => {
  const { body, polygons, input } = await readInput(c, "relabel");
  const answer = await toolkitRelabel(c.var.deps, { ...input, ...relabelSettings(body, polygons) });
  return jsonAnswer(c, toolkitMitigation(answer));
};

export const threshold = async (c: Context<AppEnv>): Promise<Response> => {
  const { body, polygons, input } = await readInput(c, "threshold");
  const settings = {
    ...relabelSettings(body, polygons),
    defaultBoundary: body.default_boundary ?? 0.5,
    // the split is the request's (fit and predict sets): these name no split, the answer's sizes do
    trainRatio: 0.5,
    stratified: false,
    randomState: 0,
  };
  const answer = await toolkitThreshold(c.var.deps, { ...input, ...settings });
  return jsonAnswer(c, toolkitMitigation(answer));
};
