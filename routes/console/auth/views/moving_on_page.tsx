/**
 * A page that moves on at once (its handler sets the `Refresh` header), for the two ends of the provider's
 * sign-in where a redirect would not do: after the callback, a redirect that follows the provider's (another
 * site's) would not carry the SameSite=Strict session cookie, while a page of the console's own that moves
 * on is same-site; and the sign-out form may not redirect to the provider (`form-action 'self'`).
 */
import { Layout } from "../../shared/layout.tsx";

export const MovingOnPage = ({ title, text, href, link }: {
  title: string;
  text: string;
  href: string;
  link: string;
}) => (
  <Layout title={title} width="narrow">
    <div class="card">
      <h1>{title}</h1>
      <p>{text}</p>
      <p>
        <a href={href}>{link}</a>
      </p>
    </div>
  </Layout>
);
