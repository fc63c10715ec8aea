/** Shared fixtures of the authentication tests: the app over a temp KV file, token requests, forged tokens. */
import assert from "node:assert/strict";
import { z } from "@hono/zod-openapi";
import { type JWTPayload, SignJWT } from "jose";
import type { KvStore } from "../../store/kv.ts";
import { newRouter, securedRoute } from "../../routes/http/router.ts";
import { errorResponses, json } from "../../routes/http/schemas.ts";
import { type AuthAppOptions, authTestApp, type TestApp } from "../support/app.ts";

export const PUBLIC_URL = "http://tessera.test";
export const ISSUER = `${PUBLIC_URL}/realms/tessera`;
export const TOKEN_PATH = "/realms/tessera/protocol/openid-connect/token";
export const BASE_ENV = {
  AUTH_MODE: "local",
  PUBLIC_URL,
  LOG_LEVEL: "silent",
  TESSERA_USERS: "alice:wonderland,bob:builder",
  TESSERA_CLIENTS: "tessera:tessera-secret,other:other-secret",
};

/** A route that only answers with a valid token, echoing the principal. */
export function protectedRoutes() {
  const app = newRouter();
  const route = securedRoute({
    role: "viewer",
    method: "get",
    path: "/test/whoami",
    responses: { 200: json(z.object({ sub: z.string() }).passthrough(), "The caller"), ...errorResponses },
  });
  app.openapi(route, (c) => c.json(c.var.principal, 200));
  return app;
}

export type App = TestApp["app"];

/** `authTestApp` with the route above, for the length of fn (a fresh KV file unless opts names one). */
export async function withApp(
  env: Record<string, string>,
  fn: (app: App, store: KvStore) => Promise<void>,
  opts: Omit<AuthAppOptions, "extraRoutes"> = {},
): Promise<void> {
  const t = await authTestApp(env, { ...opts, extraRoutes: [protectedRoutes()] });
  try {
    await fn(t.app, t.store);
  } finally {
    await t.close();
  }
}

/** POSTs a form to the token endpoint. */
export function tokenRequest(app: App, form: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(TOKEN_PATH, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
  });
}

export const passwordForm = (over: Record<string, string> = {}) => ({
  grant_type: "password",
  client_id: "tessera",
  client_secret: "tessera-secret",
  username: "alice",
  password: "wonderland",
  ...over,
});

/** A fresh access token for alice. */
export async function login(app: App): Promise<Record<string, unknown>> {
  const res = await tokenRequest(app, passwordForm());
  assert.equal(res.status, 200);
  return await res.json();
}

export const whoami = (app: App, token?: string) =>
  app.request("/test/whoami", token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

/** Asserts the RFC 6750 invalid_token answer. */
export async function assertInvalidToken(res: Response, reason?: RegExp): Promise<void> {
  assert.equal(res.status, 401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /^Bearer /);
  assert.match(challenge, /error="invalid_token"/);
  if (reason) assert.match(challenge, reason);
  assert.match((await res.json()).detail, /^Invalid token/);
}

/** Asserts the answer to a request without a token: the same challenge, naming what is missing. */
export async function assertMissingToken(res: Response): Promise<void> {
  assert.equal(res.status, 401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /^Bearer /);
  assert.match(challenge, /error="invalid_token"/);
  assert.match(challenge, /missing bearer token/);
  assert.equal((await res.json()).detail, "Not authenticated");
}

/** The token with its payload segment replaced by `claims`, header and signature kept. */
export function withPayload(token: string, claims: JWTPayload): string {
  const [header, , signature] = token.split(".");
  return `${header}.${b64url(JSON.stringify(claims))}.${signature}`;
}

/** Claims a valid local access token for alice would carry. */
export function goodClaims(): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: "tessera",
    sub: "u-1",
    typ: "Bearer",
    azp: "tessera",
    preferred_username: "alice",
    resource_access: { tessera: { roles: ["viewer"] } },
    iat: now,
    exp: now + 300,
  };
}

/** Signs claims as they are (no defaults added) with the given key and header. */
export function sign(claims: JWTPayload, key: CryptoKey | Uint8Array, header: { alg: string; kid?: string }) {
  return new SignJWT(claims).setProtectedHeader({ typ: "JWT", ...header }).sign(key);
}

export const b64url = (s: string) => btoa(s).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

/** An unsigned token (`alg: none`), built by hand since jose refuses to make one. */
export const unsigned = (claims: JWTPayload) =>
  `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${b64url(JSON.stringify(claims))}.`;
