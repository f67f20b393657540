/**
 * jest's order, but on a first run (a fresh clone: CI), the files that take longest by the clock go first.
 *
 * jest runs the slowest files first when it has timings of an earlier run; without them it goes by file size,
 * and the files that mostly wait (fleets behind a balancer, real-time video, browsers) are small: they ran
 * last, one at a time beside idle workers, and CI's PostgreSQL pass ended 90 s after everything else. This
 * list, slowest first as CI measured them, puts them at the front of a run that has no timings of its own;
 * once jest has timings, its own order stands. A name that matches no file changes nothing.
 */
const Sequencer = require('@jest/test-sequencer').default;

const SLOWEST_FIRST = [
  'show/provider.e2e.ts',
  'operations/cli.e2e.ts',
  'overlays/embed.e2e.ts',
  'gateway/hostile.e2e.ts',
  'live/fleet.e2e.ts',
  'operations/metrics.e2e.ts',
  'community/accounts.e2e.ts',
  'show/watch-page.e2e.ts',
  'quests/quest-progress.e2e.ts',
  'chat/chat-faults.e2e.ts',
  'live/fleet-http.e2e.ts',
  'show/provider-fallback.e2e.ts',
  'rest/write-routes.e2e.ts',
  'operations/split-services.e2e.ts',
  'community/password-cost.test.ts',
  'operations/prometheus.e2e.ts',
];

class SlowestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const index = SLOWEST_FIRST.findIndex((file) => test.path.endsWith(`/test/${file}`));
      return index < 0 ? SLOWEST_FIRST.length : index;
    };
    // A stable sort: the files not listed keep jest's order (largest first) after the listed ones.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowestFirst;
