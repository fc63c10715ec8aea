/** The schemas of the local realm's endpoints, as Keycloak names the fields (spec 3). */
import { z } from "@hono/zod-openapi";

const field = (description: string, rule: Record<string, unknown> = {}) =>
  z.string().optional().openapi({ description, ...rule });

export const TokenForm = z.object({
  grant_type: field("`password` or `refresh_token`", { enum: ["password", "refresh_token"] }),
  client_id: field("The client's id (or send it with client_secret as HTTP Basic)", { minLength: 1 }),
  client_secret: field("The client's secret"),
  username: field("password grant: the user's name"),
  password: field("password grant: the user's password"),
  refresh_token: field("refresh_token grant: a refresh token from an earlier answer"),
  scope: field("Ignored: every token carries `openid profile email`"),
}).openapi("TokenRequest", {
  // What the endpoint answers 400 invalid_request without (services/auth/realm.ts), for the document; the
  // form itself is read leniently, so a missing field gets Keycloak's OAuth error rather than a 422.
  // client_id and client_secret may come as HTTP Basic instead.
  required: ["grant_type", "client_id", "client_secret"],
  allOf: [
    {
      if: { properties: { grant_type: { const: "password" } }, required: ["grant_type"] },
      then: { required: ["username", "password"], properties: { username: { minLength: 1 } } },
    },
    {
      if: { properties: { grant_type: { const: "refresh_token" } }, required: ["grant_type"] },
      then: { required: ["refresh_token"], properties: { refresh_token: { minLength: 1 } } },
    },
  ],
} as Record<string, unknown>);

export const TokenBody = z.object({
  access_token: z.string(),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
  refresh_token: z.string(),
  token_type: z.literal("Bearer"),
  "not-before-policy": z.number().int(),
  session_state: z.string(),
  scope: z.string(),
}).openapi("TokenResponse");

export const OAuthErrorBody = z.object({ error: z.string(), error_description: z.string().optional() })
  .openapi("OAuthError");
export const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi("JWKS");
export const Discovery = z.record(z.string(), z.unknown()).openapi("OpenIDConfiguration");

export const RealmParams = z.object({
  realm: z.string().openapi({ param: { name: "realm", in: "path" }, example: "tessera" }),
});
