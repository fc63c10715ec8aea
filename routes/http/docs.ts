/**
 * `/openapi.json` (OpenAPI 3.1 from the zod schemas) and `/docs`, an interactive reference whose
 * script and styles Tessera serves itself from the swagger-ui-dist npm package, so it works offline.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import type { AppEnv } from "./env.ts";

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const init =
  `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", persistAuthorization: true });`;

/** Adds the OpenAPI document and the reference pages to the app. */
export function docsRoutes(app: OpenAPIHono<AppEnv>): void {
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Tessera",
      version: "0.1.0",
      description: "Dataset annotation, data valuation, spatial fairness review and data cleaning jobs. " +
        "Every route of the three interface documents needs `Authorization: Bearer <token>`; get one " +
        "from `POST /realms/{realm}/protocol/openid-connect/token` with the password grant.",
    },
  });
  const cache = { "cache-control": "public, max-age=86400" };
  app.get("/docs", (c) => c.html(page));
  app.get(
    "/docs/swagger-ui-bundle.js",
    (c) => c.body(bundle, 200, { ...cache, "content-type": "text/javascript" }),
  );
  app.get("/docs/swagger-ui.css", (c) => c.body(css, 200, { ...cache, "content-type": "text/css" }));
  app.get("/docs/init.js", (c) => c.body(init, 200, { "content-type": "text/javascript" }));
}
