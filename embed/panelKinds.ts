/**
 * The watch page's panels that draw from their renderer alone (seed 001, Panel: renderer fields): image,
 * person, group, iframe (its checked `iframe_tag`, framed sandboxed), channel select and the chat frames;
 * and what every panel kind shares — the kind read from `panel_type` (the seed's kinds in the spellings
 * sites use), the context a panel is drawn in, and small DOM helpers. Text from a renderer is always set as
 * text; a URL is used only when it is http(s).
 */
import type { LiveClient } from './liveClient';

/** The panel kinds the seed describes. */
export type PanelKind =
  | 'chat'
  | 'live-stream chat'
  | 'quest'
  | 'achievement leaderboard'
  | 'multiple choice'
  | 'schedule'
  | 'store'
  | 'playlist'
  | 'person'
  | 'group'
  | 'image'
  | 'channel select'
  | 'iframe'
  | 'q&a';

/** `panel_type` with case, spaces, `-` and `_` dropped → its kind (sites spell them `live-stream chat`, `livestream_chat`, …). */
const KINDS: Record<string, PanelKind> = {
  chat: 'chat',
  livestreamchat: 'live-stream chat',
  quest: 'quest',
  quests: 'quest',
  achievementleaderboard: 'achievement leaderboard',
  leaderboard: 'achievement leaderboard',
  multiplechoice: 'multiple choice',
  schedule: 'schedule',
  store: 'store',
  shopify: 'store',
  playlist: 'playlist',
  person: 'person',
  people: 'person',
  group: 'group',
  groups: 'group',
  image: 'image',
  channelselect: 'channel select',
  iframe: 'iframe',
  // ours: audience Q&A (embed/panelQa.ts)
  qa: 'q&a',
  'q&a': 'q&a',
  qanda: 'q&a',
  questions: 'q&a',
};

/** The kind of a `panel_type`, or null for one this page does not know (the panel is skipped). */
export const panelKindOf = (panelType: string): PanelKind | null => KINDS[panelType.toLowerCase().replace(/[\s_-]+/g, '')] ?? null;

/** A sidebar panel as the page configuration answers it (`/page/v2/configuration/{id}`). */
export interface ConfiguredPanel {
  _id: string;
  panel_type: string;
  panel_name: string;
  icon_name: string | null;
  renderer: Record<string, unknown>;
}

/** What a panel may use of the page. */
export interface PanelContext {
  siteId: string;
  channelId(): string;
  token(): string | null;
  /** The page's live client (subscriptions, poll answers), null before it connects. */
  client(): LiveClient | null;
  /** Opens the page's sign-in, saying why. */
  signIn(reason: string | null): void;
  /** Shows another channel of the site in place. */
  switchChannel(channelId: string): void;
  /** Plays a video of the site in the player, when the content check allows it. */
  playVideo(videoId: string): void;
  /** The site's checkout (where "Buy" goes), null when the site has none. */
  checkoutUrl(): string | null;
}

/** A drawn panel: its body, a frame of ours (timecode and the viewer's token reach it), what it does on changes. */
export interface PanelContent {
  body: HTMLElement;
  /** A frame of this page's own embeds: the timecode message and the viewer's token go to it. */
  frame?: HTMLIFrameElement;
  /** The viewer signed in or out, or the live client was made again. */
  refresh?(): void;
  close?(): void;
}

type Props = Partial<Record<string, string>> & { text?: string };

/** An element with attributes (`text` sets its text) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Node | null)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

/** A renderer's string field, or '' . */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** `value` when it is an http(s) URL, else null (never `javascript:` or `data:`). */
export function webUrl(value: unknown, httpsOnly = false): string | null {
  if (typeof value !== 'string' || value === '') return null;
  try {
    const url = new URL(value, location.href);
    return url.protocol === 'https:' || (!httpsOnly && url.protocol === 'http:') ? url.toString() : null;
  } catch {
    return null;
  }
}

const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : [];

function links(value: unknown): HTMLElement | null {
  const items = list(value).flatMap((link) => {
    const href = webUrl(link.link_url);
    return href ? [el('li', {}, el('a', { href, target: '_blank', rel: 'noopener noreferrer', text: textOf(link.link_text) || href }))] : [];
  });
  return items.length ? el('ul', { class: 'sg-links' }, ...items) : null;
}

function image(src: unknown, alt: string): HTMLImageElement | null {
  const url = webUrl(src);
  return url ? el('img', { src: url, alt, loading: 'lazy' }) : null;
}

function imagePanel(panel: ConfiguredPanel): PanelContent {
  const { renderer } = panel;
  const picture = image(renderer.image_url, panel.panel_name || 'Image');
  if (!picture) throw new Error('an image panel without an http(s) image_url');
  const href = webUrl(renderer.url);
  return { body: el('div', {}, href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, picture) : picture) };
}

function peoplePanel(panel: ConfiguredPanel): PanelContent {
  const people = list(panel.renderer.people).map((person) =>
    el(
      'li',
      { class: 'sg-person' },
      image(person.person_image_url, '') ?? el('span'),
      el(
        'div',
        {},
        el('p', {}, el('strong', { text: textOf(person.person_name) })),
        textOf(person.person_title) ? el('p', { class: 'sg-panel-note', text: textOf(person.person_title) }) : null,
        textOf(person.person_bio) ? el('p', { text: textOf(person.person_bio) }) : null,
        links(person.person_links),
      ),
    ),
  );
  return { body: el('ul', {}, ...people) };
}

function groupPanel(panel: ConfiguredPanel): PanelContent {
  const groups = list(panel.renderer.groups).map((group) =>
    el(
      'li',
      { class: 'sg-group' },
      image(group.group_banner_url, ''),
      el('h3', { text: textOf(group.group_name) }),
      textOf(group.group_bio) ? el('p', { text: textOf(group.group_bio) }) : null,
      links(group.group_links),
    ),
  );
  return { body: el('ul', {}, ...groups) };
}

/** Attributes of an iframe panel's tag the page keeps (the server stored nothing else: subgraphs/content/iframeTag.ts). */
const IFRAME_ATTRIBUTES = ['title', 'width', 'height', 'allow', 'allowfullscreen', 'loading', 'referrerpolicy'];

/** The iframe of `iframe_tag`, sandboxed: its scripts run in their own origin, never in this page's. */
function iframePanel(panel: ConfiguredPanel): PanelContent {
  const parsed = new DOMParser().parseFromString(textOf(panel.renderer.iframe_tag), 'text/html').body;
  const tag = parsed.children.length === 1 ? parsed.firstElementChild : null;
  const src = tag?.tagName === 'IFRAME' ? webUrl(tag.getAttribute('src'), true) : null;
  if (!tag || !src) throw new Error('an iframe panel whose iframe_tag is not one https iframe');
  const frame = el('iframe', { src, title: panel.panel_name || 'Embedded content' });
  for (const name of IFRAME_ATTRIBUTES) {
    const value = tag.getAttribute(name);
    if (value !== null) frame.setAttribute(name, value);
  }
  // Another origin keeps its own (allow-same-origin is its origin, not ours); a page of ours gets an opaque one.
  const sameOrigin = new URL(src).origin === location.origin;
  frame.setAttribute('sandbox', `allow-scripts allow-popups allow-forms allow-presentation${sameOrigin ? '' : ' allow-same-origin'}`);
  return { body: el('div', {}, frame) };
}

/** A channel of a channel-select panel: its page `_id`, and a name to show. */
function channelChoices(renderer: Record<string, unknown>): { id: string; name: string; image: string | null }[] {
  const behavior = (renderer.behavior ?? {}) as Record<string, unknown>;
  return list(behavior.pages).flatMap((page) => {
    const id = textOf(page._id) || textOf(page.id);
    const data = (page.data ?? {}) as Record<string, unknown>;
    const name = textOf(data.name) || textOf(page.name) || textOf(page.slug) || id;
    const artwork = (data.artwork ?? {}) as Record<string, unknown>;
    return /^[\w-]{1,128}$/.test(id) ? [{ id, name, image: webUrl(data.channel_select_active_image_url ?? (artwork.header as { logo?: unknown })?.logo) }] : [];
  });
}

function channelSelectPanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const choices = channelChoices(panel.renderer);
  const buttons = choices.map((choice) => {
    const button = el(
      'button',
      { type: 'button', class: 'sg-channel-choice', 'data-channel-id': choice.id },
      image(choice.image, ''),
      document.createTextNode(` ${choice.name}`),
    );
    button.addEventListener('click', () => context.switchChannel(choice.id));
    return button;
  });
  const refresh = () => {
    for (const button of buttons) {
      if (button.dataset.channelId === context.channelId()) button.setAttribute('aria-current', 'page');
      else button.removeAttribute('aria-current');
    }
  };
  refresh();
  const description = textOf(panel.renderer.description);
  return {
    body: el(
      'div',
      {},
      description ? el('p', { class: 'sg-panel-note', text: description }) : null,
      el('ul', {}, ...buttons.map((button) => el('li', {}, button))),
    ),
    refresh,
  };
}

/** A chat panel's frame (`/embed/v1/chat`), carrying the viewer's token. */
function chatPanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const frame = el('iframe', { title: panel.panel_name || 'Chat' });
  const load = () => {
    const token = context.token();
    const src = `/embed/v1/chat?${new URLSearchParams({ siteId: context.siteId, panelId: panel._id, ...(token ? { token } : {}) }).toString()}`;
    // Loaded again only for another viewer: a new live client alone changes nothing in the chat's own frame.
    if (frame.getAttribute('src') !== src) frame.src = src;
  };
  load();
  return { body: el('div', {}, frame), frame, refresh: load };
}

/** The kinds drawn from their renderer alone. */
export const RENDERER_KINDS: Partial<Record<PanelKind, (panel: ConfiguredPanel, context: PanelContext) => PanelContent>> = {
  chat: chatPanel,
  'live-stream chat': chatPanel,
  image: imagePanel,
  person: peoplePanel,
  group: groupPanel,
  iframe: iframePanel,
  'channel select': channelSelectPanel,
};
