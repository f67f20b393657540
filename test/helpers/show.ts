/**
 * A channel with a show: a channel switched on (its livestream renderer active and published), a
 * streaming provider contract at a fake provider, and the stream created for the channel; webhooks and
 * VODs sent as the provider sends them, and the channel's status read as a viewer reads it.
 */
import type { Stack } from '../../stack';
import { graphql, rest } from './http';
import type { TestSite } from './stack';
import type { FakeStreamProvider } from './streamProvider';

export const STATUS_FIELDS = /* GraphQL */ `channelId state live liveBroadcastId startedAt streamSecond recordingVideoId playbackUrl countdown { title startsAt }`;
export const STATUS_SUBSCRIPTION = /* GraphQL */ `subscription Status($channelId: ID!) { channelStatus(channelId: $channelId) { ${STATUS_FIELDS} } }`;

export interface ShowChannel {
  channelId: string;
  stream: { _id: string; providerStreamId: string; playbackUrl: string };
  /** Sends a webhook of the stream as its provider does; answers the reply. */
  hook(type: 'connected' | 'active' | 'disconnected' | 'idle', time: number): ReturnType<typeof rest>;
}

let channels = 0;

/** Registers a contract of `site` at `provider` (once per call). */
export async function registerShowProvider(stack: Stack, site: TestSite, provider: FakeStreamProvider) {
  const body = { name: `Show provider ${Date.now()}-${(channels += 1)}`, urls: provider.urls(), accountCredentials: {}, useAccount: false };
  const reply = await rest(stack, 'POST', '/streamprovider/v1/register', { headers: site.admin, body });
  if (reply.status !== 201) throw new Error(`registration failed: ${JSON.stringify(reply.body)}`);
  return { ...(reply.body as { id: string; authorization: string }), name: body.name };
}

/** A switched-on channel of `site` (with `data` merged into its data) and its stream at the contract. */
export async function showChannel(
  stack: Stack,
  site: TestSite,
  contract: { id: string; authorization: string },
  data: Record<string, unknown> = {},
): Promise<ShowChannel> {
  const page = await rest(stack, 'POST', '/pages/v3', {
    headers: site.admin,
    body: {
      slug: `show-${Date.now()}-${(channels += 1)}`,
      type: 'channel',
      data: { name: `Show ${channels}`, ...data },
      active_renderers: { livestream: true },
      renderers: { livestream: { livestream_published: true } },
    },
  });
  if (page.status !== 200) throw new Error(`channel not created: ${JSON.stringify(page.body)}`);
  const stream = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: page.body._id, contractId: contract.id } });
  if (stream.status !== 201) throw new Error(`stream not created: ${JSON.stringify(stream.body)}`);
  const headers = { Authorization: `Bearer ${contract.authorization}` };
  return {
    channelId: page.body._id,
    stream: stream.body,
    hook: (type, time) => rest(stack, 'POST', '/stream/v1/webhook', { headers, body: { type, id: stream.body.providerStreamId, time } }),
  };
}

/** channelStatus as a viewer with the site ID reads it. */
export async function readStatus(stack: Pick<Stack, 'url'>, siteId: string, channelId: string) {
  const reply = await graphql(
    stack,
    `query Status($channelId: ID!) { channelStatus(channelId: $channelId) { ${STATUS_FIELDS} } }`,
    { channelId },
    { 'x-service-client-id': siteId },
  );
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return reply.body.data.channelStatus;
}
