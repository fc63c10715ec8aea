/** The role check of every secured route: after requireAuth, a caller below the route's level gets a 403. */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";
import { allows, type Role } from "../../core/auth/roles.ts";

/** Why a caller may not: the level the route needs and the one the caller has, in words. */
export function roleRefusal(need: Role, have: Role | null): string {
  const has = have ? `you are a ${have}` : "your token carries no Tessera role (viewer, reviewer or steward)";
  return `This needs the ${need} role; ${has}.`;
}

/** The 403 of a caller below `need` (RFC 6750's insufficient_scope), naming both roles. */
export function roleForbidden(c: Context<AppEnv>, need: Role) {
  const why = roleRefusal(need, c.var.principal.role);
  c.header("WWW-Authenticate", `Bearer error="insufficient_scope", error_description="${why}"`);
  return c.json({ detail: why }, 403);
}

/** 403 unless the principal's role includes `need`. */
export const requireRole = (need: Role) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!allows(c.var.principal.role, need)) return roleForbidden(c, need);
    await next();
  });
