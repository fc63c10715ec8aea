/** Who takes a decision a request records (services/decisions): the token's user, or the console's. */
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import type { Decider } from "../../services/decisions/entry.ts";

/** The request's principal as the decision log names it (`sub`, and the username when known). */
export function deciderOf<E extends AppEnv>(c: Context<E>): Decider {
  const { sub, username } = c.var.principal;
  return { sub, username: username ?? null };
}
