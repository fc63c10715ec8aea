/**
 * The realm's handlers, made for one realm (the routes are mounted only for AUTH_MODE=local): any other
 * realm name is Keycloak's 404, OAuth errors answer in OAuth's shape rather than `{detail}`.
 */
import type { Context } from "hono";
import type { AppEnv, AppRouteHandler } from "../http/env.ts";
import type * as routes from "./auth.routes.ts";
import { discoveryDocument, grantToken, OAuthError, type Realm } from "../../services/auth/realm.ts";
import { clientAddress } from "./client_address.ts";

/** Keycloak's answer for any realm but the configured one. */
const NO_REALM = { error: "Realm does not exist" };

export const token = (realm: Realm): AppRouteHandler<typeof routes.token> => async (c) => {
  if (c.req.valid("param").realm !== realm.name) return c.json(NO_REALM, 404);
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
  const form = c.req.valid("form");
  try {
    const answer = await grantToken(realm, {
      grantType: form.grant_type,
      clientId: form.client_id,
      clientSecret: form.client_secret,
      username: form.username,
      password: form.password,
      refreshToken: form.refresh_token,
      authorization: c.req.header("authorization"),
      clientAddress: clientAddress(c),
    });
    return c.json(answer, 200);
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    if (e.retryAfter !== undefined) c.header("Retry-After", String(e.retryAfter));
    return c.json({ error: e.error, error_description: e.description }, e.status);
  }
};

/** A form the token endpoint cannot read is Keycloak's invalid_request, not a 422. */
export const tokenFormHook = (result: { success: boolean }, c: Context<AppEnv>) =>
  result.success ? undefined : c.json({ error: "invalid_request", error_description: "Malformed form" }, 400);

export const certs = (realm: Realm): AppRouteHandler<typeof routes.certs> => (c) => {
  if (c.req.valid("param").realm !== realm.name) return c.json(NO_REALM, 404);
  return c.json(realm.issuer.jwks(), 200);
};

export const discovery = (realm: Realm): AppRouteHandler<typeof routes.discovery> => (c) => {
  if (c.req.valid("param").realm !== realm.name) return c.json(NO_REALM, 404);
  return c.json(discoveryDocument(realm.issuer), 200);
};
