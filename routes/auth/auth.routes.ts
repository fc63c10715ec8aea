/**
 * AUTH_MODE=local: the Keycloak-compatible endpoints of Tessera's own realm. A client written for
 * Keycloak (spec 3: password grant, form-encoded) gets the same answers, errors included. No token needed.
 */
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { json } from "../http/schemas.ts";
import { Discovery, Jwks, OAuthErrorBody, RealmParams, TokenBody, TokenForm } from "./auth.schemas.ts";

/** A route of the realm (`{realm}` in its path): Keycloak's 404 for any other realm. */
const realmRoute = <R extends RouteConfig>(r: R) =>
  createRoute({
    tags: ["auth"],
    ...r,
    responses: { ...r.responses, 404: json(OAuthErrorBody, "Realm does not exist") },
  });

export const token = realmRoute({
  method: "post",
  path: "/realms/{realm}/protocol/openid-connect/token",
  summary: "Get a token (OAuth 2.0 password or refresh_token grant, as Keycloak)",
  request: {
    params: RealmParams,
    body: { content: { "application/x-www-form-urlencoded": { schema: TokenForm } }, required: true },
  },
  responses: {
    200: json(TokenBody, "Access and refresh token"),
    400: json(OAuthErrorBody, "invalid_request, unsupported_grant_type, or a bad refresh token"),
    401: json(OAuthErrorBody, "invalid_client or invalid_grant (wrong user credentials)"),
    429: {
      ...json(
        OAuthErrorBody,
        "temporarily_unavailable: too many failed password attempts for this user or from this address " +
          "(5 per user and address, 10 per user, 20 per address, in 60 s); the password was not checked",
      ),
      headers: z.object({
        "Retry-After": z.string().openapi({ description: "Seconds until an attempt is checked again" }),
      }),
    },
  },
});

export const certs = realmRoute({
  method: "get",
  path: "/realms/{realm}/protocol/openid-connect/certs",
  summary: "The realm's public signing keys (JWKS)",
  request: { params: RealmParams },
  responses: { 200: json(Jwks, "JSON Web Key Set") },
});

export const discovery = realmRoute({
  method: "get",
  path: "/realms/{realm}/.well-known/openid-configuration",
  summary: "OpenID Connect discovery document",
  request: { params: RealmParams },
  responses: { 200: json(Discovery, "Issuer metadata") },
});
