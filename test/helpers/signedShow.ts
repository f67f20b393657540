/**
 * A paid show on real parts, as the signed-playback and clip tests set it up: a stack, a site, the reference
 * provider registered with signed playback (its key kept from the registration's answer) and serving, a pass
 * holder; and a channel gated by the pass, offering its recording when offline, with a stream at the provider.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stack } from '../../stack';
import type { PlaybackKey } from '../../shared/playbackSigning';
import { rest } from './http';
import {
  referenceProviderPorts,
  registerReferenceProvider,
  serveReferenceProvider,
  stopReferenceProviders,
  type ReferenceProviderPorts,
} from './referenceProvider';
import { createTestSite, grantEntitlement, startTestStack, stopAll, type TestSite } from './stack';

export interface SignedShow {
  stack: Stack;
  site: TestSite;
  ports: ReferenceProviderPorts;
  contractId: string;
  /** The signed-playback key `register` kept. */
  key: PlaybackKey;
  /** An account holding the `pass` entitlement. */
  holder: { accountId: string; token: string };
}

/** Starts the stack and the provider (with `providerEnv` beside signed playback) and registers it with a new site. */
export async function startSignedShow(siteName: string, providerEnv: Record<string, string> = {}): Promise<SignedShow> {
  const ports = await referenceProviderPorts({ PROVIDER_SIGNED_PLAYBACK: 'true', ...providerEnv });
  const stack = await startTestStack({
    env: { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${ports.httpPort}`, STREAM_FALLBACK_IMAGE_URL: 'https://images.example.test/back.png' },
  });
  const site = await createTestSite(stack, siteName);
  const registered = await registerReferenceProvider(ports, { service: stack.url, siteId: site.siteId, developerKey: site.developerKey });
  if (registered.code !== 0) throw new Error(`register failed: ${registered.stderr}`);
  const contractId = JSON.parse(registered.stdout.trim()).contractId as string;
  const key = JSON.parse(readFileSync(join(ports.stateDir, 'registration.json'), 'utf8')).playbackKey as PlaybackKey;
  await serveReferenceProvider(ports);
  const holder = await site.signIn([]);
  await grantEntitlement(stack, site.siteId, holder.accountId, 'pass');
  return { stack, site, ports, contractId, key, holder };
}

/** Stops the provider (its nginx and encoders with it) and the stack: a test file's afterAll. */
export async function stopSignedShow(): Promise<void> {
  await stopReferenceProviders();
  await stopAll();
}

/** A channel gated by the `pass`, offering its recording when offline, and its stream at the show's provider. */
export async function gatedChannel(show: Pick<SignedShow, 'stack' | 'site' | 'contractId'>, slug: string) {
  const { stack, site } = show;
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug,
      type: 'channel',
      data: { name: slug, gate: { active: true, kind: 'subscription', gate: { subscriptions: ['pass'] } }, content: { offline: { kind: 'recording' } } },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  const stream = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: page.body._id, contractId: show.contractId } });
  if (stream.status !== 201) throw new Error(`the stream was not created: ${JSON.stringify(stream.body)}`);
  return { channelId: page.body._id as string, stream: stream.body as { _id: string; ingestUrl: string; streamKey: string; playbackUrl: string } };
}
