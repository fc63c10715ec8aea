/** The console's role check on every page that does or computes something: a 403 page naming the role. */
import type { MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "./env.ts";
import type { Role } from "../../../core/auth/roles.ts";
import { roleRefusal } from "../../auth/require_role.ts";
import { forbiddenPage } from "./error_pages.tsx";
import { can } from "./role_notice.tsx";

/** After `signedIn`: a 403 page, changing nothing, for a person whose role is below `role`. */
export function needs(role: Role): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (!can(c.var.session, role)) return forbiddenPage(c, roleRefusal(role, c.var.session.role));
    await next();
  };
}
