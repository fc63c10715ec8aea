/**
 * The console's answers when a page cannot be shown: refused (403: a CSRF or cross-site attempt), not
 * found, and any other error, mapped to its status by the JSON API's own table (routes/http/error_answers.ts)
 * and shown as a page, never as raw JSON.
 */
import type { Context } from "hono";
import { Layout } from "./layout.tsx";
import { Message, Notice, render } from "./components.tsx";
import { onError } from "../../http/error_answers.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { SignInError } from "../../../services/console/tokens.ts";

const sessionOf = (c: Context) => c.get("session" as never) as ConsoleSession | undefined;

/** 403: the request could not be trusted to come from this console. Nothing was changed. */
export function forbiddenPage(c: Context, message: string) {
  return render(
    c,
    <Layout title="Not accepted" session={sessionOf(c)}>
      <h1>Not accepted</h1>
      <Message kind="error" text={`${message} Nothing was changed.`} />
      <p>
        <a href="/console/">Go back to the console</a> and try again from there.
      </p>
    </Layout>,
    403,
  );
}

export function notFoundPage(c: Context, what = "There is no such page in the console.") {
  return render(
    c,
    <Layout title="Not found" session={sessionOf(c)}>
      <h1>Not found</h1>
      <p>{what}</p>
      <p>
        <a href="/console/tasks">Go to the tasks</a>
      </p>
    </Layout>,
    404,
  );
}

/**
 * 503: a session could not be renewed because the issuer cannot be asked (the provider is away); the
 * session is kept, and the page works again once the provider answers.
 */
function issuerAwayPage(c: Context, message: string) {
  return render(
    c,
    <Layout title="Sign-in unavailable">
      <h1>Sign-in unavailable</h1>
      <Message kind="error" text={message} />
      <p>
        <a href={new URL(c.req.url).pathname}>Try again</a>
      </p>
    </Layout>,
    503,
  );
}

/** Any error a page handler let through, as a page with the status the JSON API would give it. */
export async function errorPage(err: Error, c: Context) {
  if (err instanceof SignInError && err.reason === "unavailable") return issuerAwayPage(c, err.message);
  const answer = onError(err, c);
  const status = answer.status as 400 | 404 | 409 | 422 | 500 | 503;
  const body = await answer.json().catch(() => ({})) as { detail?: unknown; request_id?: string };
  if (status === 404) {
    const d = typeof body.detail === "string" ? body.detail : "";
    return notFoundPage(c, d ? `${d[0].toUpperCase()}${d.slice(1)}.` : undefined);
  }
  const detail = typeof body.detail === "string"
    ? body.detail
    : Array.isArray(body.detail)
    ? body.detail.map((d: { msg?: string }) => d.msg).join("; ")
    : "Something went wrong.";
  return render(
    c,
    <Layout title="Error" session={sessionOf(c)}>
      <h1>{status >= 500 ? "Something went wrong" : "This cannot be done"}</h1>
      <Notice kind="error">
        <p>{status === 500 ? "The server could not show this page." : detail}</p>
      </Notice>
      {body.request_id && (
        <p class="muted">
          Request id: <code>{body.request_id}</code>
        </p>
      )}
      <p>
        <a href="/console/tasks">Go to the tasks</a>
      </p>
    </Layout>,
    status === 400 || status === 409 || status === 422 || status === 503 ? status : 500,
  );
}
