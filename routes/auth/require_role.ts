/** The role check of every secured route: after requireAuth, a caller below the route's level gets a 403. */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";
import { allows, type Role } from "../../core/auth/roles.ts";

/** Why a caller may not: the level the route needs and the one the caller has, in words. */
export function roleRefusal(need: Role, have: Role | null): string {
  const has = have ? `you are a ${have}` : "your token carries no Tessera role (viewer, reviewer or steward)";
  return `This needs the ${need} role; ${has}.`;
}

/** 403 (RFC 6750's insufficient_scope) unless the principal's role includes `need`. */
export const requireRole = (need: Role) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const have = c.var.principal.role;
    if (!allows(have, need)) {
      const why = roleRefusal(need, have);
      c.header("WWW-Authenticate", `Bearer error="insufficient_scope", error_description="${why}"`);
      return c.json({ detail: why }, 403);
    }
    await next();
  });
