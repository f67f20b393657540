/**
 * The watch page's sidebar: the channel's panels in `renderers.sidebar.items` order, each drawn by its
 * kind (embed/panelKinds.ts, embed/panelFeeds.ts) under its `panel_name` and `icon_name`, dark when
 * `enable_dark_theme`, left out on a narrow screen when `disable_on_mobile_embedded` (the page is always an
 * embed). Beside the video the panels stack; on a narrow screen (≤ 480 px) they are tabs under it. A panel
 * of an unknown kind, or one that fails to draw, is skipped with a console warning: the rest of the page,
 * and the video above all, go on.
 */
import { FEED_KINDS } from './panelFeeds';
import { QA_KINDS } from './panelQa';
import { SHOP_KINDS } from './panelShop';
import { RENDERER_KINDS, el, panelKindOf, type ConfiguredPanel, type PanelContent, type PanelContext, type PanelKind } from './panelKinds';

/** The narrow screens of docs/design.md: the sidebar becomes tabs. */
export const NARROW = '(max-width: 480px)';

/** A few `icon_name`s as a glyph beside the panel's name (the name is what is read out; the glyph is decoration). */
const ICONS: Record<string, string> = {
  chat: '💬',
  'chat-bubble': '💬',
  store: '🛒',
  cart: '🛒',
  shop: '🛒',
  calendar: '📅',
  schedule: '📅',
  trophy: '🏆',
  leaderboard: '🏆',
  star: '⭐',
  quest: '🎯',
  poll: '📊',
  people: '👥',
  person: '👤',
  image: '🖼',
  play: '▶',
  playlist: '▶',
  link: '🔗',
  tv: '📺',
  question: '❓',
  qa: '❓',
};

/** The kind's name, for a panel without `panel_name`. */
const KIND_TITLES: Record<PanelKind, string> = {
  chat: 'Chat',
  'live-stream chat': 'Live chat',
  quest: 'Quests',
  'achievement leaderboard': 'Leaderboard',
  'multiple choice': 'Polls',
  schedule: 'Schedule',
  store: 'Store',
  playlist: 'Videos',
  person: 'People',
  group: 'Groups',
  image: 'Image',
  'channel select': 'Channels',
  iframe: 'Embed',
  'q&a': 'Q&A',
};

/** Draws one kind of panel. */
export type PanelDrawer = (panel: ConfiguredPanel, context: PanelContext) => PanelContent;

interface Drawn {
  panel: ConfiguredPanel;
  kind: PanelKind;
  section: HTMLElement;
  tab: HTMLButtonElement;
  content: PanelContent;
}

export class Sidebar {
  readonly drawers: Partial<Record<PanelKind, PanelDrawer>> = { ...RENDERER_KINDS, ...FEED_KINDS, ...SHOP_KINDS, ...QA_KINDS };
  private drawn: Drawn[] = [];
  private panels: ConfiguredPanel[] = [];
  private selected: string | null = null;
  private readonly narrow = window.matchMedia(NARROW);

  constructor(
    private readonly root: HTMLElement,
    private readonly tabs: HTMLElement,
    private readonly context: PanelContext,
  ) {
    // Turning a phone, or resizing a window across the line, shows or leaves out the panels that say so.
    this.narrow.addEventListener('change', () => this.show(this.panels));
  }

  /** Draws `panels` (the configuration's, in order) in place of what is shown. */
  show(panels: ConfiguredPanel[]): void {
    this.clear();
    this.panels = panels;
    for (const panel of panels) {
      const kind = panelKindOf(panel.panel_type);
      if (!kind || !this.drawers[kind]) {
        console.warn(`stagegraph watch: panel ${panel._id} is of a kind this page does not show (${panel.panel_type}); skipped`);
        continue;
      }
      if (panel.renderer.disable_on_mobile_embedded === true && this.narrow.matches) continue;
      let content: PanelContent;
      try {
        content = this.drawers[kind](panel, this.context);
      } catch (error) {
        console.warn(`stagegraph watch: panel ${panel._id} (${kind}) could not be shown; skipped`, error);
        continue;
      }
      this.add(panel, kind, content);
    }
    this.root.hidden = this.drawn.length === 0;
    this.select(this.drawn.some((entry) => entry.panel._id === this.selected) ? this.selected : (this.drawn[0]?.panel._id ?? null));
  }

  private add(panel: ConfiguredPanel, kind: PanelKind, content: PanelContent): void {
    const title = panel.panel_name || KIND_TITLES[kind];
    const icon = ICONS[(panel.icon_name ?? '').toLowerCase()] ?? '';
    const first =
      kind === 'chat' || kind === 'live-stream chat' ? !this.drawn.some((entry) => entry.kind === 'chat' || entry.kind === 'live-stream chat') : false;
    // The channel's first chat keeps the ID the page gave its chat before the sidebar (sites' styles and tests find it).
    const sectionId = first ? 'sg-watch-chat' : `sg-panel-${panel._id}`;
    const tab = el('button', { type: 'button', role: 'tab', id: `sg-tab-${panel._id}`, 'aria-controls': sectionId, 'aria-selected': 'false', tabindex: '-1' });
    tab.append(el('span', { class: 'sg-panel-icon', 'aria-hidden': 'true', text: icon }), document.createTextNode(` ${title}`));
    tab.addEventListener('click', () => this.select(panel._id));
    tab.addEventListener('keydown', (event) => this.moveWithKeys(event, panel._id));
    const heading = el(
      'h2',
      { id: `sg-panel-title-${panel._id}`, tabindex: '-1' },
      el('span', { class: 'sg-panel-icon', 'aria-hidden': 'true', text: icon }),
      el('span', { text: title }),
    );
    content.body.classList.add('sg-panel-body');
    const section = el(
      'section',
      { id: sectionId, class: 'sg-panel', role: 'tabpanel', 'aria-labelledby': `sg-panel-title-${panel._id}`, 'data-panel-id': panel._id, 'data-kind': kind },
      heading,
      content.body,
    );
    if (icon || panel.icon_name) section.dataset.icon = panel.icon_name ?? '';
    if (panel.renderer.enable_dark_theme === true) section.dataset.dark = '';
    this.tabs.append(tab);
    this.root.append(section);
    this.drawn.push({ panel, kind, section, tab, content });
  }

  private moveWithKeys(event: KeyboardEvent, panelId: string): void {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    const index = this.drawn.findIndex((entry) => entry.panel._id === panelId);
    const next = this.drawn[(index + step + this.drawn.length) % this.drawn.length];
    this.select(next.panel._id);
    next.tab.focus();
  }

  private select(panelId: string | null): void {
    this.selected = panelId;
    for (const entry of this.drawn) {
      const on = entry.panel._id === panelId;
      entry.tab.setAttribute('aria-selected', String(on));
      entry.tab.tabIndex = on ? 0 : -1;
      entry.section.toggleAttribute('data-selected', on);
    }
  }

  /** Opens a panel (an overlay's show_panel CTA): its tab on a narrow screen, scrolled to and focused beside the video. */
  open(panelId: string): boolean {
    const entry = this.drawn.find((candidate) => candidate.panel._id === panelId);
    if (!entry) {
      console.warn(`stagegraph watch: show_panel names panel ${panelId}, which this channel does not show`);
      return false;
    }
    this.select(panelId);
    entry.section.scrollIntoView({ block: 'nearest' });
    (this.narrow.matches ? entry.tab : (entry.section.querySelector('h2') as HTMLElement)).focus({ preventScroll: true });
    return true;
  }

  /** The viewer or the live client changed: each panel catches up. */
  refresh(): void {
    for (const entry of this.drawn) entry.content.refresh?.();
  }

  /** The frames of this page's own embeds among the panels (the timecode and the viewer's token go to them). */
  frames(): HTMLIFrameElement[] {
    return this.drawn.flatMap((entry) => (entry.content.frame ? [entry.content.frame] : []));
  }

  /** The channel's first chat panel, null when it has none. */
  get chatPanelId(): string | null {
    return this.drawn.find((entry) => entry.kind === 'chat' || entry.kind === 'live-stream chat')?.panel._id ?? null;
  }

  /** The panels shown, in order. */
  get shown(): { id: string; kind: PanelKind }[] {
    return this.drawn.map((entry) => ({ id: entry.panel._id, kind: entry.kind }));
  }

  private clear(): void {
    for (const entry of this.drawn) {
      entry.content.close?.();
      entry.section.remove();
      entry.tab.remove();
    }
    this.drawn = [];
  }
}
