/**
 * Redis bus (ioredis) on a Redis Stream: every message is appended (XADD, trimmed to about
 * `maxLength` entries) to one stream of the deployment, and each instance reads it with XREAD BLOCK
 * from the last entry it has seen.
 *
 * Why a stream and not pub/sub: pub/sub drops what nobody is subscribed to at that moment, so a
 * broadcast answered 200 while another instance's subscription was still reconnecting after a Redis
 * outage reached none of that instance's viewers (measured: 0 of 330). A reader of a stream resumes
 * from its last seen ID after any reconnect and reads what it missed, for every topic alike (broadcasts,
 * clears, cache announcements), without a reload of live state from the database by every instance at
 * once. A resync from the database would only cover broadcasts and costs a query per site per instance.
 *
 * Format versions: a message is `{v: 2, t: topic, at, tp?, m}`. Version 1 (the release before) was a
 * pub/sub PUBLISH of `{at, tp?, m}` on `<prefix>:<topic>`. While a rolling deploy runs both, this bus
 * also subscribes to those channels and delivers version-1 messages, and publishes each message there
 * too (the version-2 envelope is a superset an old reader accepts) so old instances' viewers miss
 * nothing. Copies on pub/sub that carry `v` are skipped here: they arrive on the stream.
 */
import Redis from 'ioredis';
import type { Logger } from '../logger';
import { recordBusDelivery } from '../metrics';
import { activeTraceparent } from '../tracing';
import { createAnnouncer } from './announcer';
import { deliveredOnce } from './delivered';
import { BusUnavailableError, type BusDelivery, type BusHandler, type EventBus } from './types';

/** The format this build writes; it reads this one and the one before. */
export const BUS_FORMAT_VERSION = 2;

/** A message as it travels: version, topic, when (and from which trace) it was published, the message. */
export interface Envelope {
  v?: number;
  t?: string;
  at: number;
  tp?: string;
  m: unknown;
}

export interface RedisBusOptions {
  url: string;
  /** Names the deployment's stream and channels, so several deployments can share one Redis. */
  prefix: string;
  logger: Logger;
  /** Entries kept in the stream (trimmed roughly, `MAXLEN ~`); see config.busStreamMaxLength. */
  maxLength?: number;
}

/** Parses an envelope; null when it is not one (logged by the caller). */
function parseEnvelope(raw: string): Envelope | null {
  try {
    const envelope = JSON.parse(raw) as Envelope;
    if (typeof envelope !== 'object' || envelope === null || typeof envelope.at !== 'number' || !('m' in envelope)) return null;
    return envelope;
  } catch {
    return null;
  }
}

export function createRedisBus({ url, prefix, logger, maxLength = 10_000 }: RedisBusOptions): EventBus {
  // Publishing fails at once while Redis is away (see publish), so commands are not queued for long.
  const options = { maxRetriesPerRequest: 2, enableOfflineQueue: true, retryStrategy: (times: number) => Math.min(times * 100, 1000) };
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, options);
  // XREAD BLOCK holds its connection, so the stream has a reader of its own.
  const reader = new Redis(url, options);
  const handlers = new Map<string, Set<BusHandler>>();
  /** Subscribe commands Redis has not acknowledged yet; the bus is not ready until they are. */
  const pending = new Set<Promise<unknown>>();
  const stream = `${prefix}:bus`;
  const channel = (topic: string) => `${prefix}:${topic}`;
  let closed = false;

  for (const connection of [publisher, subscriber, reader]) {
    connection.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection error'));
  }

  const once = deliveredOnce();
  const deliver = (topic: string, envelope: Envelope) => {
    const set = handlers.get(topic);
    // A live push this instance delivered already (itself during a blip, or offered twice) is not delivered again.
    if (!once.first(envelope.m) || !set) return;
    const delivery: BusDelivery = { publishedAt: envelope.at, traceparent: envelope.tp };
    recordBusDelivery(topic, envelope.at);
    for (const handler of set) handler(envelope.m, delivery);
  };

  // Version 1 on pub/sub (instances of the previous release during a rolling deploy).
  subscriber.on('message', (name: string, raw: string) => {
    // A version-2 copy for old readers (its `v` comes first): this bus reads it from the stream, unparsed here.
    if (raw.startsWith('{"v":')) return;
    const envelope = parseEnvelope(raw);
    if (!envelope) {
      logger.warn({ channel: name }, 'dropped a bus message that is not an envelope');
      return;
    }
    if (envelope.v !== undefined) return;
    deliver(name.slice(prefix.length + 1), envelope);
  });

  /** The stream entry this instance has read up to; null until it knows where the stream ends. */
  let lastId: string | null = null;
  const readStream = async () => {
    while (!closed) {
      try {
        // At start: only what comes from now on (earlier messages were for instances running then).
        if (lastId === null) {
          const [last] = await reader.xrevrange(stream, '+', '-', 'COUNT', 1);
          lastId = last ? last[0] : '0-0';
        }
        const answer = await reader.xread('COUNT', 1000, 'BLOCK', 5000, 'STREAMS', stream, lastId);
        for (const [, entries] of answer ?? []) {
          for (const [id, fields] of entries) {
            lastId = id;
            const envelope = parseEnvelope(fields[1] ?? '');
            if (!envelope || typeof envelope.t !== 'string') {
              logger.warn({ id }, 'dropped a bus stream entry that is not an envelope');
            } else if ((envelope.v ?? 1) > BUS_FORMAT_VERSION) {
              logger.warn({ id, version: envelope.v }, 'dropped a bus message of a newer format');
            } else {
              deliver(envelope.t, envelope);
            }
          }
        }
      } catch (error) {
        if (closed) return;
        // Redis is away: ioredis reconnects; the next read resumes from lastId, so nothing is skipped.
        logger.debug({ err: (error as Error).message }, 'bus stream read failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  void readStream();

  const publish = async (topic: string, message: unknown) => {
    // Refused at once while Redis is away, so a broadcast answers 503 now instead of after retries.
    if (publisher.status !== 'ready') throw new BusUnavailableError();
    const envelope: Envelope = { v: BUS_FORMAT_VERSION, t: topic, at: Date.now(), tp: activeTraceparent(), m: message };
    const raw = JSON.stringify(envelope);
    const results = await publisher.pipeline().xadd(stream, 'MAXLEN', '~', String(maxLength), '*', 'e', raw).publish(channel(topic), raw).exec();
    const appended = results?.[0];
    if (!appended || appended[0]) throw new BusUnavailableError((appended?.[0] as Error | undefined)?.message);
  };
  // Handed over as a copy, as the stream would: subscribers must not share the announcer's object.
  const deliverHere = (topic: string, message: unknown) =>
    setImmediate(() => deliver(topic, { at: Date.now(), tp: activeTraceparent(), m: JSON.parse(JSON.stringify(message)) as unknown }));
  const announcer = createAnnouncer({ publish, deliverHere, logger });

  const connected = () => publisher.status === 'ready' && reader.status === 'ready' && subscriber.status === 'ready';

  return {
    publish,
    announce: announcer.announce,
    subscribe(topic, handler) {
      let set = handlers.get(topic);
      if (!set) {
        handlers.set(topic, (set = new Set()));
        const name = channel(topic);
        const subscribed = subscriber
          .subscribe(name)
          .catch((error: Error) => logger.error({ err: error.message, channel: name }, 'redis subscribe failed'))
          .finally(() => pending.delete(subscribed));
        pending.add(subscribed);
      }
      set.add(handler);
      return () => {
        set.delete(handler);
        if (set.size === 0) {
          handlers.delete(topic);
          subscriber.unsubscribe(channel(topic)).catch(() => undefined);
        }
      };
    },
    connected,
    async ready() {
      if (!connected() || pending.size > 0 || lastId === null) return false;
      try {
        return (await publisher.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      closed = true;
      announcer.stop();
      handlers.clear();
      reader.disconnect();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
    },
  };
}
