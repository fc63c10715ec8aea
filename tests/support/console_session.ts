/**
 * A reviewer signed in to the console of a test app (alice, the local issuer's form), with the CSRF token
 * of a task's review page, and the requests that carry them: what the console's route tests share.
 */
import assert from "node:assert/strict";
import type { StoreApp } from "./stores.ts";

/**
 * The review tests' eight individuals in two regions of four: region 0 has 3 predicted positives, region 1
 * has 1 (lat, lon, y_true, y_pred, region_ids).
 */
export const SPOTS_CSV = [
  "name,lat,lon,y_true,y_pred,region_ids",
  "a1,50.1,10.1,1,1,0",
  "a2,50.2,10.2,1,1,0",
  "a3,50.3,10.3,0,1,0",
  "a4,50.4,10.4,1,0,0",
  "b1,50.1,11.1,1,1,1",
  "b2,50.2,11.2,1,0,1",
  "b3,50.3,11.3,0,0,1",
  "b4,50.4,11.4,1,0,1",
].join("\n");

/** The review form's settings over SPOTS_CSV: the suggested mapping, statistical parity, 19 worlds. */
export const SPOTS_SETTINGS = {
  map_y_pred: "y_pred",
  map_y_true: "y_true",
  map_lat: "lat",
  map_lon: "lon",
  map_region_ids: "region_ids",
  equal_opp: "false",
  n_worlds: "19",
  signif_level: "0.05",
  region_mode: "auto",
};

/** PUBLIC_URL of a test app: the Origin a form post must carry. */
export const ORIGIN = "http://localhost:8000";

export interface Session {
  cookie: string;
  csrf: string;
  /** The review page the token was read from. */
  page: string;
}

/** Signs alice in and reads the review page of the task of `collection` (which must exist). */
export function signIn(t: StoreApp, collection: string): Promise<Session> {
  return signInAt(t, `/console/tasks/${collection}`);
}

/** Signs alice in (`password`: the app's users') and reads `path`, a console page with a form. */
export async function signInAt(t: Pick<StoreApp, "app">, path: string, password = ""): Promise<Session> {
  const res = await t.app.request("/console/sign-in", {
    method: "POST",
    headers: { origin: ORIGIN },
    body: new URLSearchParams({ username: "alice", password }),
  });
  assert.equal(res.status, 303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  const page = await (await t.app.request(path, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
  return { cookie, csrf, page };
}

/** A GET with the session's cookie. */
export const getPage = (t: StoreApp, s: Session, path: string) =>
  t.app.request(path, { headers: { cookie: s.cookie } });

/** A form post with the session's cookie, its CSRF token and the app's Origin. */
export const postForm = (t: StoreApp, s: Session, path: string, fields: Record<string, string>) =>
  t.app.request(path, {
    method: "POST",
    headers: { origin: ORIGIN, cookie: s.cookie },
    body: new URLSearchParams({ _csrf: s.csrf, ...fields }),
  });
