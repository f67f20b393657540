/**
 * What one operation costs the shared servers, on one instance with PostgreSQL + Redis: the SQL
 * statements the instance sends (its own counter, GET /internal/v1/database-queries) and the Redis
 * commands and bytes (INFO commandstats and INFO stats of a private redis-server, before and after), per
 * overlay broadcast, per data event that fires a rule (and so a broadcast) and per data event that does
 * not. Each is the average over `count` operations sent one after another; the bus's idle traffic (one
 * XREAD per 5 s, a presence report per 5 s) is measured over an idle second and taken off.
 */
import { createHmac } from 'node:crypto';
import Redis from 'ioredis';
import { createChannelPage, createSite, type Instance } from './harness';
import { databaseQueries } from './join';

export interface OperationCost {
  operations: number;
  sqlStatements: number;
  redisCommands: Record<string, number>;
  redisBytesIn: number;
  redisBytesOut: number;
}

interface RedisCounters {
  commands: Record<string, number>;
  bytesIn: number;
  bytesOut: number;
}

async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const commands: Record<string, number> = {};
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([\w|]+):calls=(\d+)/.exec(line);
    if (match) commands[match[1]] = Number(match[2]);
  }
  const stats = await redis.info('stats');
  const number = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  return { commands, bytesIn: number('total_net_input_bytes'), bytesOut: number('total_net_output_bytes') };
}

const round = (value: number) => Math.round(value * 100) / 100;

async function call(instance: Instance, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const reply = await fetch(`${instance.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await reply.text();
  if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** `instance` must run on PostgreSQL and the Redis of `redisUrl`. */
export async function measureCosts(instance: Instance, redisUrl: string, count = 50): Promise<Record<string, OperationCost>> {
  const redis = new Redis(redisUrl);
  try {
    const site = createSite(instance);
    const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
    const channel = await createChannelPage(instance, { 'content-type': 'application/json', ...admin }, 'main');
    const overlay = await call(instance, 'POST', '/overlay/v1', admin, {
      name: 'Score',
      type: 'template',
      contents: { html: '<b>${score}</b>' },
      duration: 30,
    });
    const schema = {
      type: 'object',
      required: ['data'],
      properties: { data: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, score: { type: 'string' } } } },
    };
    const { dataProviderId, secret } = await call(instance, 'POST', '/dataprovider/v1/register', admin, {
      name: 'Feed',
      description: 'costs',
      schema,
      ownerName: 'Bench',
      ownerEmail: 'bench@example.test',
      realtime: true,
      ttl: 600,
    });
    await call(instance, 'POST', '/personalization/v1/', admin, {
      name: 'Goal',
      jsonRule: {
        trigger: { dataProviderId, fact: 'data.kind', operator: 'equal', value: 'goal', behavior: 'immediate' },
        action: {
          type: 'SEND_OVERLAY',
          targeting: { scope: 'all_channels', target: [] },
          templateId: overlay._id,
          dataMap: { score: 'data.score' },
          broadcastPayload: {},
        },
      },
    });
    const event = (kind: string, n: number) => async () => {
      const body = JSON.stringify({ data: { kind, score: String(n) } });
      const signature = createHmac('sha256', secret).update(body).digest('hex');
      const reply = await fetch(`${instance.url}/dataprovider/v1/${dataProviderId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-dataprovider-signature': signature },
        body,
      });
      if (reply.status !== 201) throw new Error(`event answered ${reply.status}`);
    };
    const operations: Record<string, (n: number) => () => Promise<unknown>> = {
      'overlay broadcast (REST, one channel)': (n) => () =>
        call(instance, 'POST', `/overlay/v1/broadcast/${overlay._id}`, admin, { channelId: channel, variables: { score: String(n) } }),
      'data event that fires a rule (→ one broadcast)': (n) => event('goal', n),
      'data event that fires nothing': (n) => event('tick', n),
    };

    const measure = async (run: (n: number) => Promise<unknown>): Promise<{ sql: number; redis: RedisCounters; ms: number }> => {
      const sqlBefore = await databaseQueries(instance);
      const redisBefore = await redisCounters(redis);
      const started = Date.now();
      for (let n = 0; n < count; n += 1) await run(n);
      // The bus delivers after the answer: let the reads of the stream land.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const ms = Date.now() - started;
      const redisAfter = await redisCounters(redis);
      const sqlAfter = await databaseQueries(instance);
      const commands: Record<string, number> = {};
      for (const [name, calls] of Object.entries(redisAfter.commands)) {
        const change = calls - (redisBefore.commands[name] ?? 0);
        if (change > 0) commands[name] = change;
      }
      return {
        sql: sqlAfter - sqlBefore,
        redis: { commands, bytesIn: redisAfter.bytesIn - redisBefore.bytesIn, bytesOut: redisAfter.bytesOut - redisBefore.bytesOut },
        ms,
      };
    };

    // Idle traffic over one second (the counters' own INFO calls included), scaled to each run's length.
    const idle = await measure(async () => new Promise((resolve) => setTimeout(resolve, 1000 / count)));
    const costs: Record<string, OperationCost> = {};
    for (const [name, operation] of Object.entries(operations)) {
      await operation(-1)(); // warm
      const run = await measure((n) => operation(n)());
      const scale = run.ms / idle.ms;
      const perOperation = (value: number, idleValue: number) => round(Math.max(0, value - idleValue * scale) / count);
      costs[name] = {
        operations: count,
        sqlStatements: perOperation(run.sql, idle.sql),
        redisCommands: Object.fromEntries(
          Object.entries(run.redis.commands)
            .map(([command, calls]) => [command, perOperation(calls, idle.redis.commands[command] ?? 0)] as const)
            .filter(([command, calls]) => calls > 0 && command !== 'info'),
        ),
        redisBytesIn: Math.round(Math.max(0, run.redis.bytesIn - idle.redis.bytesIn * scale) / count),
        redisBytesOut: Math.round(Math.max(0, run.redis.bytesOut - idle.redis.bytesOut * scale) / count),
      };
    }
    return costs;
  } finally {
    redis.disconnect();
  }
}
