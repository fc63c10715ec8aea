/**
 * The sign-in page: the form (local issuer, or AUTH_MODE=off), or with a provider (AUTH_MODE=oidc) the
 * link that signs in there, and why the person is here (an ended session, a sign-out, an error).
 */
import { Layout } from "../../shared/layout.tsx";
import { Field, Message, Notice, Submit } from "../../shared/components.tsx";

export interface SignInView {
  next: string;
  pending?: string;
  expired?: boolean;
  signedOut?: boolean;
  username?: string;
  error?: string;
  offMode: boolean;
  /** AUTH_MODE=oidc: the provider's name and the address that starts its sign-in; no password form then. */
  provider?: { name: string; href: string };
}

export const SignInPage = (v: SignInView) => {
  const errorId = v.error ? "sign-in-error" : undefined;
  return (
    <Layout title="Sign in" width="narrow">
      <div class="card">
        <h1>Sign in</h1>
        <p class="lede">to the Tessera review console</p>
        {v.expired && (
          <Message
            kind="info"
            text={
              <>
                Your session has expired. Sign in again to continue
                {v.pending ? "; the form you sent was not saved and will be shown again, filled in." : "."}
              </>
            }
          />
        )}
        {v.signedOut && <Message kind="success" text="You have signed out." />}
        {v.offMode && (
          <Message
            kind="info"
            text="Authentication is off on this server (AUTH_MODE=off): any username signs in."
          />
        )}
        {v.provider
          ? (
            <div aria-describedby={errorId}>
              {v.error && <Notice kind="error" id={errorId}>{v.error}</Notice>}
              <p>You sign in at {v.provider.name}; your password is never sent to Tessera.</p>
              <p class="form-actions">
                <a class="btn" href={v.provider.href}>Sign in with {v.provider.name}</a>
              </p>
            </div>
          )
          : (
            <form method="post" action="/console/sign-in" aria-describedby={errorId}>
              {v.error && <Notice kind="error" id={errorId}>{v.error}</Notice>}
              <input type="hidden" name="next" value={v.next} />
              {v.pending && <input type="hidden" name="pending" value={v.pending} />}
              <Field
                label="Username"
                name="username"
                value={v.username}
                autocomplete="username"
                required
              />
              <Field label="Password" name="password" type="password" autocomplete="current-password" />
              <Submit label="Sign in" />
            </form>
          )}
      </div>
    </Layout>
  );
};
