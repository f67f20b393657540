/**
 * Signing in on the watch page: the dialog (e-mail and password, `POST /auth/v2/login` with the site
 * header, saying why it opened: an overlay's login CTA text, a panel's words), the magic link (the page
 * opened with `?inviteToken=` consumes the invite with `POST /invite/v1/consume` and signs the viewer in
 * with the session it gives), a login intent (the page opened with `?loginIntent=`, consumed with
 * `GET /auth/v2/intent/consume/{token}`), and signing out (`POST /auth/v2/logout`). The session is kept in the
 * browser's storage for the site, so the page opens signed in; what the page does with the token is the
 * caller's (`onSession`).
 */

/** A viewer's session: the JWT every read sends, and the refresh token that ends it on sign-out. */
export interface Session {
  jwt: string;
  refreshToken: string | null;
}

/** Keeps the page's address free of a token the viewer no longer holds (a reload would sign them back in). */
export function forgetTokenInAddress(): void {
  const url = new URL(location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  history.replaceState(null, '', url);
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

export class SignIn {
  // A page of an older version (cached beside a newer script) has no dialog: sign-in is then a detached no-op.
  private readonly dialog = byId<HTMLDialogElement>('sg-watch-signin') ?? document.createElement('dialog');
  private readonly form = this.dialog.querySelector('form') ?? document.createElement('form');
  private readonly error = byId<HTMLElement>('sg-watch-signin-error') ?? document.createElement('p');
  private readonly storageKey: string;
  private session: Session | null = null;

  constructor(
    private readonly siteId: string,
    private readonly onSession: (session: Session | null) => void,
  ) {
    this.storageKey = `stagegraph:session:${siteId}`;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      if ((event.submitter as HTMLButtonElement | null)?.value === 'cancel') this.dialog.close();
      else void this.submit();
    });
    byId<HTMLButtonElement>('sg-watch-signin-open')?.addEventListener('click', () => this.open(null));
    byId<HTMLButtonElement>('sg-watch-signout')?.addEventListener('click', () => void this.signOut());
  }

  /** The session kept from an earlier visit, or null. */
  restore(): Session | null {
    try {
      const kept = JSON.parse(localStorage.getItem(this.storageKey) ?? 'null') as Session | null;
      this.session = kept && typeof kept.jwt === 'string' ? kept : null;
    } catch {
      this.session = null;
    }
    return this.session;
  }

  /** Opens the dialog; `reason` (an overlay CTA's text, a panel's words) says why. */
  open(reason: string | null): void {
    const said = byId<HTMLElement>('sg-watch-signin-reason');
    if (!said) return;
    said.textContent = reason ?? 'Sign in with your e-mail and password.';
    this.error.textContent = '';
    if (!this.dialog.open) this.dialog.showModal();
    (this.form.elements.namedItem('email') as HTMLInputElement).focus();
  }

  /** Shows who is signed in (a token from the page's query or the site's page counts too). */
  showSignedIn(signedIn: boolean): void {
    const [open, out, who] = ['sg-watch-signin-open', 'sg-watch-signout', 'sg-watch-who'].map((id) => byId<HTMLElement>(id));
    if (!open || !out || !who) return;
    open.hidden = signedIn;
    out.hidden = !signedIn;
    who.hidden = !signedIn;
    who.textContent = signedIn ? 'Signed in' : '';
  }

  private async submit(): Promise<void> {
    const email = (this.form.elements.namedItem('email') as HTMLInputElement).value;
    const password = (this.form.elements.namedItem('password') as HTMLInputElement).value;
    const response = await fetch('/auth/v2/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-client-id': this.siteId },
      body: JSON.stringify({ email, password }),
    }).catch(() => null);
    if (!response?.ok) {
      this.error.textContent =
        response?.status === 429 ? 'Too many tries: wait a moment and try again' : response ? 'Wrong e-mail or password' : 'Could not reach the server';
      return;
    }
    const answer = (await response.json()) as { jwt: string; refreshToken: string };
    (this.form.elements.namedItem('password') as HTMLInputElement).value = '';
    this.dialog.close();
    this.signedIn({ jwt: answer.jwt, refreshToken: answer.refreshToken });
  }

  /**
   * Opens a magic link: consumes the invite (as the signed-in viewer, when `current` is a token) and signs in
   * with the session it gives. False when the invite is refused (used, revoked, unknown): the page says so.
   */
  async consumeInvite(inviteToken: string, current: string | null): Promise<boolean> {
    const response = await fetch('/invite/v1/consume', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-client-id': this.siteId, ...(current ? { authorization: `Bearer ${current}` } : {}) },
      body: JSON.stringify({ token: inviteToken }),
    }).catch(() => null);
    if (!response?.ok) return false;
    const answer = (await response.json()) as { session: { jwt: string; refreshToken: string } | null };
    // Someone signed in already keeps their session: the invite's SKUs went to their account.
    if (answer.session) this.signedIn({ jwt: answer.session.jwt, refreshToken: answer.session.refreshToken });
    else if (current) this.onSession({ jwt: current, refreshToken: this.session?.refreshToken ?? null });
    return true;
  }

  /**
   * Opens a login intent (seed 001: a third party's sign-in handed over as a one-time token): turns it into a
   * session with `GET /auth/v2/intent/consume/{token}` and signs in with it. False when it is refused (used,
   * expired, unknown): the page says so.
   */
  async consumeLoginIntent(intentToken: string): Promise<boolean> {
    const response = await fetch(`/auth/v2/intent/consume/${encodeURIComponent(intentToken)}`, {
      headers: { 'x-service-client-id': this.siteId },
    }).catch(() => null);
    if (!response?.ok) return false;
    const session = (await response.json()) as { jwt: string; refreshToken: string };
    this.signedIn({ jwt: session.jwt, refreshToken: session.refreshToken });
    return true;
  }

  /** Ends the session (on the server too, when this page holds its refresh token). */
  async signOut(): Promise<void> {
    const refreshToken = this.session?.refreshToken;
    this.forget();
    this.onSession(null);
    if (refreshToken) {
      await fetch('/auth/v2/logout', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-client-id': this.siteId },
        body: JSON.stringify({ refreshToken }),
      }).catch(() => undefined);
    }
  }

  /** Drops the kept session (the server refused its token). */
  forget(): void {
    this.session = null;
    try {
      localStorage.removeItem(this.storageKey);
    } catch {
      // Storage refused: nothing was kept.
    }
  }

  private signedIn(session: Session): void {
    this.session = session;
    try {
      localStorage.setItem(this.storageKey, JSON.stringify(session));
    } catch {
      // Storage refused (a private window): signed in for this page's life.
    }
    this.onSession(session);
  }
}
