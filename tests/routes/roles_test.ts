/**
 * Roles through the JSON API with the local issuer: every route of /openapi.json answers 403 naming the
 * role it needs to a caller below it, and lets one at or above it through, against the table
 * (written here by hand from issue 38, not read from the routes).
 */
import assert from "node:assert/strict";
import { BASE_ENV, tokenRequest, whoami, withApp } from "./auth_fixtures.ts";
import type { Role } from "../../core/auth/roles.ts";
import { authTestApp } from "../support/app.ts";

/**
 * What each route needs (issue 38): viewer reads anything; reviewer also runs audits, mitigations,
 * valuation, annotations and cleaning jobs; steward also imports, replaces, deletes, writes back,
 * approves or rejects, undoes, and changes task status (creating and deleting task documents with it).
 */
const NEEDS: Record<string, Role> = {
  "GET /dataset": "viewer",
  "GET /dataset/{dataset_name}": "viewer",
  "GET /model": "viewer",
  "GET /model/{model_id}": "viewer",
  "GET /procedures": "viewer",
  "POST /annotations": "reviewer",
  "GET /annotations/{dataset_id}": "viewer",
  "POST /configuration": "reviewer",
  "GET /configuration/{dataset_id}": "viewer",
  "POST /data_model_info": "reviewer",
  "GET /data_model_info/{dataset_name}": "viewer",
  "POST /schema": "reviewer",
  "GET /schema/{dataset_name}": "viewer",
  "POST /api/correlations/analyze": "reviewer",
  "POST /api/feature-importance/analyze": "reviewer",
  "GET /api/tasks/documents": "viewer",
  "POST /api/tasks/documents": "steward",
  "GET /api/tasks/document/{collection_name}": "viewer",
  "PATCH /api/tasks/document/{collection_name}": "steward",
  "DELETE /api/tasks/document/{collection_name}": "steward",
  "GET /api/spatial-hitl/task/{data_collection_name}/dataset-columns": "viewer",
  "POST /api/spatial-hitl/task/{data_collection_name}/audit": "reviewer",
  "GET /api/spatial-hitl/task/{data_collection_name}/runs": "viewer",
  "GET /api/spatial-hitl/task/{data_collection_name}/runs/{run_id}": "viewer",
  "POST /api/spatial-hitl/task/{data_collection_name}/runs/{run_id}/cancel": "reviewer",
  "GET /api/spatial-hitl/task/{data_collection_name}/runs/{run_id}/report": "viewer",
  "GET /api/spatial-hitl/task/{data_collection_name}/runs/{run_id}/maps/{name}": "viewer",
  "POST /api/spatial-hitl/task/{data_collection_name}/mitigate/relabel": "reviewer",
  "POST /api/spatial-hitl/task/{data_collection_name}/mitigate/relabel/frontier": "reviewer",
  "POST /api/spatial-hitl/task/{data_collection_name}/mitigate/threshold": "reviewer",
  "POST /api/spatial-hitl/task/{data_collection_name}/mitigate/writeback": "steward",
  "POST /api/spatial-hitl/task/{data_collection_name}/mitigate/writeback/{writeback_id}/undo": "steward",
  "POST /api/datasets/{database_name}/{collection_name}": "steward",
  "GET /api/datasets/{database_name}/{collection_name}": "viewer",
  "DELETE /api/datasets/{database_name}/{collection_name}": "steward",
  "GET /api/decisions": "viewer",
  "POST /run/": "reviewer",
  "POST /approve/": "steward",
  "GET /get-new-jobs/": "viewer",
  "GET /jobs/{job_id}": "viewer",
  "GET /jobs/{job_id}/results": "viewer",
  "POST /approve/{job_id}/undo": "steward",
  // the toolkit's stateless routes; keep=true needs steward (tests/routes/spatial_bias_browser_test.ts)
  "POST /api/spatial-bias/audit": "reviewer",
  "POST /api/spatial-bias/mitigate/relabel": "reviewer",
  "POST /api/spatial-bias/mitigate/threshold": "reviewer",
};

const USERS = "vera:v-pass:viewer,rui:r-pass:reviewer,sam:s-pass:steward,old:o-pass";
const ENV = { ...BASE_ENV, TESSERA_USERS: USERS, RATE_LIMIT_CAPACITY: "1000" };
const LEVELS: Role[] = ["viewer", "reviewer", "steward"];

Deno.test("every secured route answers 403 below its role and lets its role and above through", async () => {
  const t = await authTestApp(ENV);
  const app = t.app;
  try {
    const token = async (username: string, password: string) => {
      const res = await tokenRequest(app, {
        grant_type: "password",
        client_id: "tessera",
        client_secret: "tessera-secret",
        username,
        password,
      });
      assert.equal(res.status, 200);
      return (await res.json()).access_token as string;
    };
    const tokens: Record<Role, string> = {
      viewer: await token("vera", "v-pass"),
      reviewer: await token("rui", "r-pass"),
      steward: await token("sam", "s-pass"),
    };
    const doc = await (await app.request("/openapi.json")).json();
    const secured: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if ((op as { security?: unknown[] }).security?.length) {
          secured.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    assert.deepEqual(secured.sort(), Object.keys(NEEDS).sort(), "every secured route is in the table");
    for (const route of secured) {
      const [method, path] = route.split(" ");
      const url = path.replace(/\{[^}]+\}/g, "zz_none");
      for (const level of LEVELS) {
        const res = await app.request(url, {
          method,
          headers: { authorization: `Bearer ${tokens[level]}`, "content-type": "application/json" },
          body: method === "GET" || method === "DELETE" ? undefined : "{}",
        });
        const body = await res.text();
        const below = LEVELS.indexOf(level) < LEVELS.indexOf(NEEDS[route]);
        if (below) {
          assert.equal(res.status, 403, `${route} as ${level}: ${body}`);
          assert.equal(
            JSON.parse(body).detail,
            `This needs the ${NEEDS[route]} role; you are a ${level}.`,
            route,
          );
          assert.match(res.headers.get("www-authenticate") ?? "", /error="insufficient_scope"/);
        } else {
          assert.notEqual(res.status, 403, `${route} as ${level}: ${body}`);
          assert.notEqual(res.status, 401, `${route} as ${level}: ${body}`);
        }
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("a user of TESSERA_USERS with no role is a steward, as every user was before roles", async () => {
  await withApp(ENV, async (app) => {
    const res = await tokenRequest(app, {
      grant_type: "password",
      client_id: "tessera",
      client_secret: "tessera-secret",
      username: "old",
      password: "o-pass",
    });
    const { access_token } = await res.json();
    assert.equal((await (await whoami(app, access_token)).json()).role, "steward");
    const del = await app.request("/api/tasks/document/zz_none", {
      method: "DELETE",
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(del.status, 404); // through the role check, to a task that is not there
  });
});

Deno.test("the OpenAPI document names each route's role and its 403", async () => {
  await withApp(ENV, async (app) => {
    const doc = await (await app.request("/openapi.json")).json();
    const writeback = doc.paths["/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback"].post;
    assert.match(writeback.description, /Needs the steward role\.$/);
    assert.ok(writeback.responses["403"]);
    const list = doc.paths["/api/tasks/documents"].get;
    assert.match(list.description, /Needs any role \(viewer, reviewer or steward\)\.$/);
  });
});
