/** The decision log's one route: read it. No route changes or deletes an entry. */
import { securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { DecisionPage, DecisionQuery } from "./decisions.schemas.ts";

export const list = securedRoute({
  role: "viewer",
  method: "get",
  path: "/api/decisions",
  tags: ["decisions"],
  summary: "The decision log: who changed data or review state, when, and how to reproduce it",
  description: "Newest first; every filter is optional. Entries are written once and never changed.",
  request: { query: DecisionQuery },
  responses: { 200: json(DecisionPage, "A page of entries"), ...errorResponses },
});
