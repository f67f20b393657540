/**
 * The per-site cache behind viewer reads: a storm of identical misses is one read, a change drops the
 * site's values (and only that site's), and a read that was in flight across a change is not kept.
 */
import { createMemoryBus } from '../../shared/bus/memory';
import { announceViewerReadsChanged, followedSiteCache, SiteCache } from '../../shared/viewerReads';

/** A load the test finishes by hand, counting how often it started. */
function manualLoad<V>() {
  const control = { starts: 0, finish: (_value: V) => undefined as void };
  const load = () => {
    control.starts += 1;
    return new Promise<V>((resolve) => {
      control.finish = resolve;
    });
  };
  return { control, load };
}

it('shares one read among concurrent misses and keeps its value', async () => {
  const cache = new SiteCache<string>();
  const { control, load } = manualLoad<string>();
  const readers = Array.from({ length: 50 }, () => cache.through('site-a', 'page:1', load));
  control.finish('page one');
  expect(await Promise.all(readers)).toEqual(Array(50).fill('page one'));
  expect(control.starts).toBe(1);
  expect(await cache.through('site-a', 'page:1', () => Promise.resolve('not read'))).toBe('page one');
});

it('drops one site on its change, every site on a change of unknown site', async () => {
  const cache = new SiteCache<string>();
  await cache.through('site-a', 'k', async () => 'a');
  await cache.through('site-b', 'k', async () => 'b');
  cache.drop('site-a');
  expect(cache.get('site-a', 'k')).toBeUndefined();
  expect(cache.get('site-b', 'k')).toBe('b');
  cache.drop(null);
  expect(cache.get('site-b', 'k')).toBeUndefined();
});

it('does not keep a value read across a change of its site', async () => {
  const cache = new SiteCache<string>();
  const { control, load } = manualLoad<string>();
  const stale = cache.through('site-a', 'k', load);
  cache.drop('site-a');
  control.finish('read before the change');
  // The caller that started before the change gets what it read; nobody after it does.
  expect(await stale).toBe('read before the change');
  expect(cache.get('site-a', 'k')).toBeUndefined();
  expect(await cache.through('site-a', 'k', async () => 'read after the change')).toBe('read after the change');
});

it('follows change announcements on the bus, in the announcing process before the bus delivers', async () => {
  const bus = createMemoryBus();
  const { cache, stop } = followedSiteCache<string>(bus);
  await cache.through('site-a', 'k', async () => 'a');
  const announced = announceViewerReadsChanged(bus, 'site-a');
  // Dropped synchronously, before the announcement reaches the bus's subscribers.
  expect(cache.get('site-a', 'k')).toBeUndefined();
  await announced;
  stop();
  await bus.close();
});
