/**
 * The console's own stylesheet, script and icon, served by Tessera (no CDN, no build step). Each URL
 * carries a hash of its content, so a browser may keep it for a year and still gets a changed one at once.
 */
import { Hono } from "hono";
import type { ConsoleEnv } from "./env.ts";
// the console's stylesheet in two files of one job each (the frame: page, focus, top bar, buttons; the
// parts: forms, panels, filters, tables), served as the one file console.css
import cssFrame from "../assets/console/base.css" with { type: "text" };
import cssParts from "../assets/console/parts.css" with { type: "text" };
import js from "../assets/console.js" with { type: "text" };
import favicon from "../assets/favicon.svg" with { type: "text" };
import cvCss from "../assets/cleaning-valuation.css" with { type: "text" };
import cvJs from "../assets/cleaning-valuation.js" with { type: "text" };
import reviewCss from "../assets/review.css" with { type: "text" };
import reviewJs from "../assets/review.js" with { type: "text" };

const FILES: Record<string, { body: string; type: string }> = {
  "console.css": { body: `${cssFrame}\n${cssParts}`, type: "text/css; charset=utf-8" },
  "console.js": { body: js, type: "text/javascript; charset=utf-8" },
  "favicon.svg": { body: favicon, type: "image/svg+xml" },
  "cleaning-valuation.css": { body: cvCss, type: "text/css; charset=utf-8" },
  "cleaning-valuation.js": { body: cvJs, type: "text/javascript; charset=utf-8" },
  "review.css": { body: reviewCss, type: "text/css; charset=utf-8" },
  "review.js": { body: reviewJs, type: "text/javascript; charset=utf-8" },
};

/** FNV-1a of a text, as 8 hex digits: enough to tell two versions of an asset apart. */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

const VERSIONS = Object.fromEntries(Object.entries(FILES).map(([name, f]) => [name, fnv(f.body)]));

/** The versioned address of an asset. */
export function assetUrl(name: keyof typeof FILES & string): string {
  return `/console/assets/${name}?v=${VERSIONS[name]}`;
}

/** `GET /console/assets/{name}` (no session needed: the sign-in page uses them too). */
export function assetRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/assets/:name", (c) => {
    const name = c.req.param("name");
    const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (!file) return c.text("Not Found", 404);
    const current = c.req.query("v") === VERSIONS[name];
    return c.body(file.body, 200, {
      "content-type": file.type,
      "cache-control": current ? "public, max-age=31536000, immutable" : "no-cache",
      "x-content-type-options": "nosniff",
    });
  });
  return app;
}
