/**
 * Environment → one typed, validated Config. Nothing else in Tessera reads `Deno.env`.
 * Every variable, its default and its meaning is listed in docs/operations.md.
 */
import { z } from "zod";
import { type Role, ROLES } from "./core/auth/roles.ts";

/** The client and user `deno task dev` comes with; production refuses them (demoCredentials). */
export const DEMO_CLIENT = ["tessera", "tessera-secret"] as const;
export const DEMO_USER = ["demo", "demo"] as const;
/** The users `deno task dev` adds beside the demo steward, one per lower role. */
const DEV_USERS = "demo:demo:steward,viewer:viewer:viewer,reviewer:reviewer:reviewer";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const pairs = (what: string) =>
  z.string().transform((s, ctx) => {
    const out = new Map<string, string>();
    for (const item of s.split(",").map((x) => x.trim()).filter(Boolean)) {
      const i = item.indexOf(":");
      if (i <= 0) {
        ctx.addIssue({ code: "custom", message: `${what}: '${item}' is not of the form name:secret` });
        return z.NEVER;
      }
      out.set(item.slice(0, i), item.slice(i + 1));
    }
    return out;
  });

/** A user's password and role from TESSERA_USERS. */
export interface UserEntry {
  password: string;
  role: Role;
}

/**
 * TESSERA_USERS: `name:password` or `name:password:role`, comma-separated; no role: steward (as every user
 * was before roles). The password is everything between the first colon and a trailing `:<role>`.
 */
const users = z.string().transform((s, ctx) => {
  const out = new Map<string, UserEntry>();
  for (const item of s.split(",").map((x) => x.trim()).filter(Boolean)) {
    const m = /^([^:]+):(.*?)(?::(viewer|reviewer|steward))?$/.exec(item);
    if (!m) {
      ctx.addIssue({
        code: "custom",
        message: `TESSERA_USERS: '${
          item.split(":")[0]
        }:…' is not of the form name:password or name:password:role`,
      });
      return z.NEVER;
    }
    out.set(m[1], { password: m[2], role: (m[3] as Role | undefined) ?? "steward" });
  }
  return out;
});

/** ROLE_NAMES: `level=name` pairs naming each level as the provider does (e.g. `steward=data-owner`). */
const roleNames = z.string().transform((s, ctx) => {
  const out: Partial<Record<Role, string>> = {};
  for (const item of s.split(",").map((x) => x.trim()).filter(Boolean)) {
    const [level, name] = item.split("=").map((x) => x.trim());
    if (!(ROLES as readonly string[]).includes(level) || !name) {
      ctx.addIssue({
        code: "custom",
        message: `'${item}' is not of the form level=name with level one of ${ROLES.join(", ")}`,
      });
      return z.NEVER;
    }
    out[level as Role] = name;
  }
  return out;
});

/** A TCP port: digits, 0-65535 (0: any free one). */
const port = z.string().transform((s, ctx) => {
  const n = Number(s);
  if (!/^\d{1,5}$/.test(s.trim()) || n > 65535) {
    ctx.addIssue({ code: "custom", message: `must be a port number (0-65535), got '${s}'` });
    return z.NEVER;
  }
  return n;
});

/**
 * CORS_ORIGINS: exact origins (`scheme://host[:port]`, no path), comma-separated; each written as a browser
 * sends it in `Origin`, so the match stays an exact comparison. `*` is refused: the API takes bearer tokens.
 */
const origins = z.string().transform((s, ctx) => {
  const out: string[] = [];
  for (const item of s.split(",").map((x) => x.trim()).filter(Boolean)) {
    const problem = originProblem(item);
    if (problem) {
      ctx.addIssue({ code: "custom", message: `'${item}' ${problem}` });
      return z.NEVER;
    }
    out.push(item);
  }
  return out;
});

/** Why a CORS_ORIGINS entry is not an origin as browsers send it, or null when it is one. */
function originProblem(item: string): string | null {
  if (item === "*" || item.includes("*")) {
    return "is a wildcard; list each origin (the API takes bearer tokens, so no wildcard)";
  }
  let url: URL;
  try {
    url = new URL(item);
  } catch {
    return "is not an origin of the form scheme://host[:port] (e.g. http://localhost:5173)";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return "is not an http(s) origin (e.g. http://localhost:5173)";
  }
  if (url.origin !== item) {
    return `is not an origin of the form scheme://host[:port] with no path (did you mean '${url.origin}'?)`;
  }
  return null;
}

const schema = z.object({
  PORT: port.default(8000),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: z.string().url().optional(),
  /** Origins whose browser pages may call the JSON API (CORS); none by default. */
  CORS_ORIGINS: origins.default([]),
  MONGO_URL: z.string().regex(
    /^mongodb(\+srv)?:\/\/[^\s/?#]+/,
    "must be a MongoDB connection string (mongodb://host:port/... or mongodb+srv://host/...)",
  ).optional(),
  KV_PATH: z.string().default("./data/tessera.kv"),
  TESSERA_DB: z.string().regex(/^[A-Za-z0-9_-]+$/).default("tessera"),
  AUTH_MODE: z.enum(["local", "oidc", "off"]).default("local"),
  TESSERA_REALM: z.string().regex(/^[A-Za-z0-9_.-]+$/).default("tessera"),
  TESSERA_USERS: users.optional(),
  TESSERA_CLIENTS: pairs("TESSERA_CLIENTS").default(new Map([[DEMO_CLIENT[0], DEMO_CLIENT[1]]])),
  /** Production (no --dev) refuses to start with the demo client secret or user unless this is true. */
  ALLOW_DEMO_CREDENTIALS: bool.default(false),
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).default(300),
  REFRESH_TTL_SECONDS: z.coerce.number().int().min(10).default(1800),
  OIDC_JWKS_URL: z.string().url().optional(),
  OIDC_ISSUER: z.string().optional(),
  OIDC_AUDIENCE: z.string().optional(),
  /** The client whose roles (`resource_access.<client>.roles`) a token's role is read from; unset: the audience. */
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  /** Another claim holding role names (a list or a space-separated string; a dotted path reaches in). */
  OIDC_ROLES_CLAIM: z.string().min(1).optional(),
  /** The role of a valid token that carries none of the role names; unset: none (it may do nothing). */
  OIDC_DEFAULT_ROLE: z.enum(ROLES).optional(),
  /** What the provider calls each level, e.g. `viewer=tessera-read,steward=data-owner`; unset: the level's name. */
  ROLE_NAMES: roleNames.default({}),
  /** The token endpoint the review console uses in oidc mode; unset: the one the discovery document names. */
  OIDC_TOKEN_URL: z.string().url().optional(),
  /** The provider's name on the console's sign-in button ("Sign in with <name>") in oidc mode. */
  OIDC_PROVIDER_NAME: z.string().min(1).optional(),
  /**
   * The client the review console signs people in as (local: a TESSERA_CLIENTS id, default the first;
   * oidc: default OIDC_AUDIENCE, the client of the code flow).
   */
  CONSOLE_CLIENT_ID: z.string().min(1).optional(),
  /** That client's secret in oidc mode (unset: a public client); local mode takes it from TESSERA_CLIENTS. */
  CONSOLE_CLIENT_SECRET: z.string().optional(),
  TASKS_ENABLED: bool.default(true),
  BODY_LIMIT_MB: z.coerce.number().positive().default(256),
  /**
   * The body limit of the dataset import (POST /api/datasets/...), which streams its body into the store
   * instead of holding it: large enough for a million rows with a list column (~560 MB of NDJSON).
   */
  IMPORT_BODY_LIMIT_MB: z.coerce.number().positive().default(2048),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  JOBS_ENABLED: bool.default(true),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  JOB_LEASE_SECONDS: z.coerce.number().positive().default(30),
  JOB_POLL_SECONDS: z.coerce.number().positive().default(1),
  JOB_TIMEOUT_SECONDS: z.coerce.number().positive().default(600),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(3),
  /**
   * An import's hold on its dataset name, and a write-back's or an undo's on its record, lasts this long
   * unrenewed; one whose process died is recovered after it.
   */
  IMPORT_LEASE_SECONDS: z.coerce.number().positive().default(15),
  RATE_LIMIT_CAPACITY: z.coerce.number().int().min(0).default(60),
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(1),
  MODELS_DIR: z.string().min(1).optional(),
  /**
   * Memory for prepared datasets (columns as typed arrays, region membership, derived structures) kept
   * between requests, in MB; the least recently used go first once it is full. 0: nothing is kept.
   */
  PREPARED_CACHE_MB: z.coerce.number().min(0).default(1024),
  /** Web Workers of the pool; unset: one per core (workers/pool.ts); 0: every task inline. */
  WORKERS: z.coerce.number().int().min(0).max(1024).optional(),
  /**
   * Tile URL template of the HTML maps' base map (`https://.../{z}/{x}/{y}.png`, `{s}` allowed); unset: the
   * vector base map embedded in each page, and a page loads nothing from outside.
   */
  MAP_TILE_URL: z.string().regex(
    /^https?:\/\/[^\s"'<>]+$/i,
    "MAP_TILE_URL must be an http(s) URL template",
  ).refine(
    (u) => ["{z}", "{x}", "{y}"].every((p) => u.includes(p)),
    "MAP_TILE_URL must contain {z}, {x} and {y}",
  ).optional(),
});

export type Config = z.infer<typeof schema> & {
  dev: boolean;
  publicUrl: string;
  /** Who may sign in to the local issuer, with their password and role. */
  users: Map<string, UserEntry>;
};

/** Reads and validates the configuration; throws one line listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined>, opts: { dev?: boolean } = {}): Config {
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration: ${issues.join("; ")}`);
  }
  const c = parsed.data;
  const dev = opts.dev ?? false;
  if (c.AUTH_MODE === "oidc" && (!c.OIDC_JWKS_URL || !c.OIDC_ISSUER || !c.OIDC_AUDIENCE)) {
    throw new Error(
      "invalid configuration: AUTH_MODE=oidc needs OIDC_JWKS_URL, OIDC_ISSUER and OIDC_AUDIENCE",
    );
  }
  const users = c.TESSERA_USERS ?? (dev ? schema.shape.TESSERA_USERS.parse(DEV_USERS)! : new Map());
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, "");
  return { ...c, dev, publicUrl, users };
}

/**
 * What of the demo credentials a configuration would accept, in one sentence, or null: the local issuer
 * (AUTH_MODE=local) with a client whose secret is the demo one (`tessera-secret`, the default of
 * TESSERA_CLIENTS) or the user demo:demo. main.ts refuses to start with them outside --dev unless
 * ALLOW_DEMO_CREDENTIALS=true.
 */
export function demoCredentials(config: Config): string | null {
  if (config.AUTH_MODE !== "local" || config.ALLOW_DEMO_CREDENTIALS) return null;
  const found: string[] = [];
  for (const [id, secret] of config.TESSERA_CLIENTS) {
    if (secret === DEMO_CLIENT[1]) found.push(`client '${id}' has the default secret '${DEMO_CLIENT[1]}'`);
  }
  if (config.users.get(DEMO_USER[0])?.password === DEMO_USER[1]) {
    found.push(`TESSERA_USERS holds the demo user demo:demo`);
  }
  if (!found.length) return null;
  return `demo credentials in production: ${found.join(", and ")}; set TESSERA_CLIENTS=id:secret and ` +
    "TESSERA_USERS=name:password of your own (or ALLOW_DEMO_CREDENTIALS=true to run with them anyway)";
}
