/**
 * Three levels of access, each including the ones before it: a viewer reads anything, a reviewer also
 * runs audits, mitigations, valuation, annotations and cleaning jobs, a steward also changes data and
 * decides (import, replace, delete, write back, approve or reject, undo, task status).
 */
import type { JWTPayload } from "jose";

export const ROLES = ["viewer", "reviewer", "steward"] as const;
export type Role = (typeof ROLES)[number];

/** Whether a caller with role `have` (null: none of the three) may do what needs `need`. */
export function allows(have: Role | null, need: Role): boolean {
  return have !== null && ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** Where a token's roles are read, and what the provider calls the three levels. */
export interface RoleClaims {
  /** Keycloak's client roles are read from `resource_access.<clientId>.roles`. */
  clientId: string;
  /** Another claim holding role names (a list, or a space-separated string); a dotted path reaches into objects. */
  claim?: string;
  /** The provider's name of each level (default: the level's own name). */
  names?: Partial<Record<Role, string>>;
  /** The level of a valid token that carries none of the names (default: none, so it may do nothing). */
  fallback?: Role;
}

/** The highest level whose name a token's claims carry, or the fallback, or null. */
export function roleFromClaims(payload: JWTPayload, opts: RoleClaims): Role | null {
  const carried = new Set([
    ...namesAt(payload, ["resource_access", opts.clientId, "roles"]),
    ...namesAt(payload, ["realm_access", "roles"]),
    ...(opts.claim ? namesAt(payload, claimPath(payload, opts.claim)) : []),
  ]);
  for (const role of [...ROLES].reverse()) {
    if (carried.has(opts.names?.[role] ?? role)) return role;
  }
  return opts.fallback ?? null;
}

/** A claim named as a whole when the token has it so (`https://example.org/roles`), else a dotted path. */
function claimPath(payload: JWTPayload, claim: string): string[] {
  return Object.hasOwn(payload, claim) ? [claim] : claim.split(".");
}

/** The strings at a path of the claims: a list's strings, or a space-separated string's words. */
function namesAt(payload: JWTPayload, path: string[]): string[] {
  let at: unknown = payload;
  for (const key of path) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return [];
    at = (at as Record<string, unknown>)[key];
  }
  if (typeof at === "string") return at.split(/\s+/).filter(Boolean);
  return Array.isArray(at) ? at.filter((v): v is string => typeof v === "string") : [];
}
