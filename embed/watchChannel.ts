/**
 * What the watch page shows of the channel around its video (docs/design.md "The whole channel in the
 * watch page"): the page configuration's panels in the sidebar, the channel's look, the overlay CTAs acted
 * on in the page (show_panel opens the panel, login opens sign-in with the CTA's words, social_share opens
 * the share sheet or copies the link), and the viewer's sign-in (the dialog, a magic link, signing out).
 * The player and the show are embed/watch.ts's; it hands over what this needs as {@link ChannelPage}.
 */
import { SDK_MESSAGE_SOURCE } from '../shared/contracts/viewerProtocol';
import type { LiveClient } from './liveClient';
import type { ConfiguredPanel, PanelContext } from './panelKinds';
import { Sidebar } from './watchSidebar';
import { applyAccents, applyArtwork, showWelcome } from './watchLook';
import { SignIn, type Session } from './watchSignIn';

/** What the page's core (embed/watch.ts) lends the channel's parts. */
export interface ChannelPage {
  siteId: string;
  channelId: () => string;
  token: () => string | null;
  /** The viewer signed in (a token) or out (null): everything is asked again as them. */
  setToken: (token: string | null) => void;
  client: () => LiveClient | null;
  switchChannel: (channelId: string) => void;
  playVideo: (videoId: string) => void;
}

/** `GET /page/v2/configuration/{id}` (the fields the page reads). */
interface PageConfiguration {
  panels: ConfiguredPanel[];
  page: { name: string };
  site: { checkout_url?: string | null };
  theme: { colors?: Record<string, unknown> } | null;
}

/** The content check's `channel` (the fields the page reads). */
export interface CheckedChannel {
  data?: unknown;
  renderers?: { sidebar?: { items?: { id?: unknown }[] } } | null;
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const TOAST_MS = 4000;

/** A CTA from the overlay layer (embed/overlays.ts). */
interface CtaMessage {
  type: string;
  data: unknown;
  shared?: boolean;
}

function ctaOf(value: unknown): CtaMessage | null {
  const message = value as { source?: unknown; action?: unknown; data?: { type?: unknown } } | null;
  return message?.source === SDK_MESSAGE_SOURCE && message.action === 'cta' && typeof message.data?.type === 'string' ? (message.data as CtaMessage) : null;
}

export class ChannelParts {
  readonly sidebar: Sidebar;
  readonly signIn: SignIn;
  private configuration: PageConfiguration | null = null;
  /** The checked channel until its sidebar is compared with the configuration. */
  private channel: CheckedChannel | null = null;
  private looked = '';
  private toastTimer: number | undefined;

  constructor(private readonly page: ChannelPage) {
    const context: PanelContext = {
      siteId: page.siteId,
      channelId: page.channelId,
      token: page.token,
      client: page.client,
      signIn: (reason) => this.signIn.open(reason),
      switchChannel: page.switchChannel,
      playVideo: page.playVideo,
      checkoutUrl: () => this.configuration?.site.checkout_url ?? null,
    };
    this.sidebar = new Sidebar(byId('sg-watch-sidebar'), byId('sg-watch-tabs'), context);
    this.signIn = new SignIn(page.siteId, (session: Session | null) => page.setToken(session?.jwt ?? null));
  }

  /** Reads the channel's configuration and draws its panels and accents (again after a channel switch). */
  async load(): Promise<void> {
    const channelId = this.page.channelId();
    const response = await fetch(`/page/v2/configuration/${encodeURIComponent(channelId)}`, { headers: { 'x-service-client-id': this.page.siteId } }).catch(
      () => null,
    );
    if (channelId !== this.page.channelId()) return;
    if (!response?.ok) {
      console.warn(`stagegraph watch: the configuration of channel ${channelId} could not be read (${response?.status ?? 'no answer'}); no panels`);
      this.sidebar.show([]);
      return;
    }
    const configuration = (await response.json()) as PageConfiguration;
    this.configuration = configuration;
    byId<HTMLElement>('sg-watch-title').textContent = configuration.page.name;
    applyAccents(configuration.theme?.colors);
    this.sidebar.show(configuration.panels);
    this.warnMissing();
  }

  /** The channel as the content check answers it: its artwork and welcome screen, and the sidebar's missing panels said. */
  onChannel(channel: CheckedChannel | null | undefined): void {
    if (!channel) return;
    const key = `${this.page.channelId()}|${JSON.stringify(channel.data ?? null)}`;
    if (key === this.looked) return;
    this.looked = key;
    applyArtwork(channel.data);
    showWelcome(channel.data);
    this.channel = channel;
    this.warnMissing();
  }

  /** Says which of the sidebar's items name no panel (deleted, or never made), once both reads are in. */
  private warnMissing(): void {
    if (!this.configuration || !this.channel) return;
    const known = new Set(this.configuration.panels.map((panel) => panel._id));
    for (const item of this.channel.renderers?.sidebar?.items ?? []) {
      if (typeof item.id === 'string' && !known.has(item.id)) console.warn(`stagegraph watch: sidebar panel ${item.id} does not exist; skipped`);
    }
    this.channel = null;
  }

  /** Acts on a CTA the overlay layer sent (true when `message` was one). */
  onMessage(message: MessageEvent, overlays: Window | null): boolean {
    const cta = message.source === overlays ? ctaOf(message.data) : null;
    if (!cta) return false;
    if (cta.type === 'show_panel' && typeof cta.data === 'string') this.sidebar.open(cta.data);
    else if (cta.type === 'login') this.signIn.open(typeof cta.data === 'string' && cta.data.trim() && !/^(\/|https?:)/.test(cta.data) ? cta.data : null);
    else if (cta.type === 'social_share' && !cta.shared) void this.share();
    return true;
  }

  /** The platform's share sheet, else the link copied (and said). */
  private async share(): Promise<void> {
    const url = new URL(location.pathname, location.origin);
    url.search = new URLSearchParams({ siteId: this.page.siteId, channelId: this.page.channelId() }).toString();
    const link = url.toString();
    if (typeof navigator.share === 'function') {
      const shared = await navigator.share({ url: link, title: document.title }).then(
        () => true,
        (error: Error) => error.name === 'AbortError',
      );
      if (shared) return;
    }
    const copied = await navigator.clipboard?.writeText(link).then(
      () => true,
      () => false,
    );
    this.toast(copied ? 'Link copied' : `Share this link: ${link}`);
  }

  /** Opens a magic link (the page's `?inviteToken=`): the invite consumed, the viewer signed in by it. */
  async openInvite(inviteToken: string): Promise<void> {
    const url = new URL(location.href);
    url.searchParams.delete('inviteToken');
    // The link works once: a reload must not spend it again.
    history.replaceState(null, '', url);
    if (!(await this.signIn.consumeInvite(inviteToken, this.page.token()))) this.toast('This invite link was already used or is no longer valid');
  }

  async openLoginIntent(intentToken: string): Promise<void> {
    const url = new URL(location.href);
    url.searchParams.delete('loginIntent');
    // An intent works once: a reload must not spend it again.
    history.replaceState(null, '', url);
    if (!(await this.signIn.consumeLoginIntent(intentToken))) this.toast('This sign-in link was already used or is no longer valid');
  }

  /** A video's URL as this viewer may play it (the Video read with the site ID and token), null when refused. */
  async videoUrl(videoId: string): Promise<string | null> {
    const token = this.page.token();
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-client-id': this.page.siteId, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: /* GraphQL */ `query WatchVideo($id: ID!) { video(id: $id) { id url } }`, variables: { id: videoId } }),
    }).catch(() => null);
    const answer = response?.ok ? ((await response.json()) as { data?: { video: { url: string | null } | null } }) : null;
    return answer?.data?.video?.url ?? null;
  }

  toast(text: string): void {
    const toast = byId<HTMLElement>('sg-watch-toast');
    toast.textContent = text;
    clearTimeout(this.toastTimer);
    this.toastTimer = window.setTimeout(() => (toast.textContent = ''), TOAST_MS);
  }
}
