/**
 * The watch page's store and playlist panels (docs/design.md "The whole channel in the watch page"). The
 * store lists the site's entitlements and bundles with their prices (the catalog is read signed in: the site ID alone
 * does not read it, docs/api.md), marks what the viewer holds, and sends "Buy" to the site's own checkout
 * (`settings.checkout_url`, with `?sku=`): money stays with the site's processor. The playlist lists its
 * videos (a deleted one is skipped with a warning); choosing one plays it when the content check allows.
 */
import { queryAs } from './panelFeeds';
import { el, textOf, type ConfiguredPanel, type PanelContent, type PanelContext } from './panelKinds';

interface CatalogEntry {
  sku: string;
  name: string;
  prices: { currency: string; value: number; default: boolean }[];
}
interface Bundle {
  sku: string | null;
  name: string;
  price: number | null;
  presentmentCurrency: string;
}
const STORE_QUERY = /* GraphQL */ `query WatchStore {
  entitlements { sku name prices { currency value default } }
  bundles { sku name price presentmentCurrency }
  me { subscriptions { status entitlement { sku } } }
}`;

/** A price in the viewer's own way of writing money. */
function priceOf(entry: CatalogEntry): string {
  const price = entry.prices.find((candidate) => candidate.default) ?? entry.prices[0];
  if (!price) return '';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: price.currency }).format(price.value);
  } catch {
    return `${price.value} ${price.currency}`;
  }
}

/** Where "Buy" goes for `sku`: the site's checkout with `sku` in its query; null without a checkout. */
function buyUrl(checkout: string | null, sku: string): string | null {
  if (!checkout) return null;
  try {
    const url = new URL(checkout);
    if (url.protocol !== 'https:') return null;
    url.searchParams.set('sku', sku);
    return url.toString();
  } catch {
    return null;
  }
}

function storePanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const body = el('div', { class: 'sg-store' });
  let drawnFor: string | null | undefined;
  const draw = async () => {
    const token = context.token();
    if (token === drawnFor) return;
    drawnFor = token;
    if (!token) {
      const button = el('button', { type: 'button', text: textOf(panel.renderer.login_button_text) || 'Sign in' });
      button.addEventListener('click', () => context.signIn('Sign in to see the store'));
      body.replaceChildren(el('p', { class: 'sg-panel-note', text: 'Sign in to see the store' }), button);
      return;
    }
    const data = await queryAs<{
      entitlements: CatalogEntry[];
      bundles: Bundle[];
      me: { subscriptions: { status: string; entitlement: { sku: string } }[] } | null;
    }>(context, STORE_QUERY, {});
    if (drawnFor !== token) return;
    if (!data) {
      body.replaceChildren(el('p', { class: 'sg-panel-note', text: 'The store is not available' }));
      return;
    }
    const held = new Set((data.me?.subscriptions ?? []).filter((held) => held.status === 'active').map((held) => held.entitlement.sku));
    // A bundle is bought by its SKU like an entitlement (one without a SKU is shown, not sold here).
    const offers: CatalogEntry[] = [
      ...data.entitlements,
      ...data.bundles.map((bundle) => ({
        sku: bundle.sku ?? '',
        name: bundle.name,
        prices: bundle.price === null ? [] : [{ currency: bundle.presentmentCurrency, value: bundle.price, default: true }],
      })),
    ];
    const items = offers.map((entry) => {
      const href = entry.sku ? buyUrl(context.checkoutUrl(), entry.sku) : null;
      const action = held.has(entry.sku)
        ? el('span', { class: 'sg-held', text: 'Yours' })
        : href
          ? el('a', { href, target: '_blank', rel: 'noopener', class: 'sg-buy', text: `Buy ${entry.name}` })
          : null;
      const item = el(
        'li',
        { 'data-sku': entry.sku },
        el('span', {}, el('strong', { text: entry.name }), document.createTextNode(` ${priceOf(entry)}`)),
        action,
      );
      if (held.has(entry.sku)) item.dataset.held = '';
      return item;
    });
    body.replaceChildren(items.length ? el('ul', {}, ...items) : el('p', { class: 'sg-panel-note', text: 'Nothing for sale' }));
  };
  void draw();
  return { body, refresh: () => void draw() };
}

interface PlaylistVideo {
  id: string;
  title: string | null;
}
const PLAYLIST_QUERY = /* GraphQL */ `query WatchPlaylist($id: ID!) { playlist(id: $id) { title members { id schema video { id title } } } }`;

function playlistPanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const id = textOf(panel.renderer.playlist_id);
  if (!id) throw new Error('a playlist panel without playlist_id');
  const list = el('ul', { class: 'sg-playlist' });
  void queryAs<{ playlist: { members: { id: string; schema: string; video: PlaylistVideo | null }[] } | null }>(context, PLAYLIST_QUERY, { id }).then(
    (data) => {
      if (!data?.playlist) {
        console.warn(`stagegraph watch: playlist ${id} is not available; its panel is empty`);
        list.replaceChildren(el('li', { text: 'This playlist is not available' }));
        return;
      }
      const items = data.playlist.members.flatMap((member) => {
        if (member.schema !== 'video') return [];
        if (!member.video) {
          console.warn(`stagegraph watch: video ${member.id} of playlist ${id} was deleted; skipped`);
          return [];
        }
        const video = member.video;
        const button = el('button', { type: 'button', 'data-video-id': video.id, text: `Play ${video.title || 'video'}` });
        button.addEventListener('click', () => context.playVideo(video.id));
        return [el('li', {}, button)];
      });
      list.replaceChildren(...(items.length ? items : [el('li', { text: 'No videos yet' })]));
    },
  );
  return { body: el('div', {}, list) };
}

/** The store and playlist kinds. */
export const SHOP_KINDS = { store: storePanel, playlist: playlistPanel } as const;
