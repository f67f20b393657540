/**
 * A chat bench worker process: reacts to one room at a steady rate through `POST /chat/v1/{panelId}/reactions`,
 * each reaction from the next account (and instance) in turn, at most `inFlight` requests open at once,
 * and reports how many of each emoji were accepted (200): what viewers' counts must add up to exactly.
 */
import { Agent, setGlobalDispatcher } from 'undici';

interface Start {
  type: 'start';
  urls: string[];
  siteId: string;
  panelId: string;
  tokens: string[];
  emoji: string[];
  ratePerSecond: number;
  seconds: number;
  inFlight: number;
}

// Keep-alive connections, enough for the requests in flight.
setGlobalDispatcher(new Agent({ connections: 256, pipelining: 1 }));

async function react(start: Start): Promise<{ accepted: Record<string, number>; statuses: Record<string, number>; sent: number }> {
  const accepted: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const total = Math.round(start.ratePerSecond * start.seconds);
  let open = 0;
  let sent = 0;
  const startAt = performance.now();
  const done: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const wait = startAt + (index * 1000) / start.ratePerSecond - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    // Past the in-flight cap the reaction is not sent (the server is behind): counted as such, never queued.
    if (open >= start.inFlight) {
      statuses.skipped = (statuses.skipped ?? 0) + 1;
      continue;
    }
    const emoji = start.emoji[index % start.emoji.length];
    const url = start.urls[index % start.urls.length];
    open += 1;
    sent += 1;
    done.push(
      fetch(`${url}/chat/v1/${start.panelId}/reactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-client-id': start.siteId, authorization: `Bearer ${start.tokens[index % start.tokens.length]}` },
        body: JSON.stringify({ emoji }),
      })
        .then(async (reply) => {
          await reply.arrayBuffer();
          statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
          if (reply.status === 200) accepted[emoji] = (accepted[emoji] ?? 0) + 1;
        })
        .catch(() => {
          statuses.error = (statuses.error ?? 0) + 1;
        })
        .finally(() => {
          open -= 1;
        }),
    );
  }
  await Promise.all(done);
  return { accepted, statuses, sent };
}

process.on('message', async (message: Start | { type: 'close' }) => {
  if (message.type === 'start') process.send?.({ type: 'reacted', ...(await react(message)) });
  else process.exit(0);
});
