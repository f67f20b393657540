/**
 * `npx tsx bench/turnSlices.ts`: requests that take their turns (shared/turns.ts: one turn to start, one
 * per subgraph fetch) beside a pass that writes in slices and yields between them, as a chat room's pass
 * over its viewers does (gateway/live/feeds/chatPass.ts): the requests' latency for each slice length.
 * In one process, with no sockets: it measures how the turns let requests in while a pass goes on.
 */
import { TURN_TARGET_MS, nextTurn } from '../shared/turns';

/** Requests per second, each three slices of 0.5 ms (a start and two fetches), for SECONDS per slice length. */
const RATE = 60;
const SECONDS = 5;
const SLICE_WORK_MS = 0.5;

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

async function measure(sliceMs: number): Promise<void> {
  let passing = true;
  const pass = (async () => {
    while (passing) {
      busy(sliceMs);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const latencies: number[] = [];
  const requests: Promise<void>[] = [];
  const timer = setInterval(() => {
    const at = performance.now();
    requests.push(
      (async () => {
        await nextTurn();
        busy(SLICE_WORK_MS);
        for (let fetch = 0; fetch < 2; fetch += 1) {
          await nextTurn('continuing');
          busy(SLICE_WORK_MS);
        }
        latencies.push(performance.now() - at);
      })(),
    );
  }, 1000 / RATE);
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  clearInterval(timer);
  const answeredInTime = latencies.length;
  passing = false;
  await Promise.all([...requests, pass]);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(0);
  console.log(
    `pass slices of ${sliceMs} ms: ${requests.length} requests, ${answeredInTime} answered within the ${SECONDS} s, latency p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`,
  );
}

void (async () => {
  for (const slice of [TURN_TARGET_MS, TURN_TARGET_MS / 2, TURN_TARGET_MS, TURN_TARGET_MS / 2]) await measure(slice);
})();
