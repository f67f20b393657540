/** Resolvers of webhook endpoints and their deliveries (D or a Webhooks role); a secret is shown only when made. */
import { requireAdmin } from '../../../shared/auth/access';
import { sealSecret } from '../../../shared/auth/sealed';
import { badInput } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { stringList } from '../../../shared/json';
import { paging } from '../listing';
import type { Resolvers, WebhookDeliveryStatus } from '../resolvers.generated';
import { checkEndpointFields, checkEvents, findEndpoint, newWebhookSecret } from '../webhooks';
import { Scopes, timestamps } from '../scopes';
import { outboundPolicy } from '../../../shared/outbound';

export const webhookResolvers: Resolvers = {
  Query: {
    webhookEndpoints: (_root, _args, { identity, db }) =>
      db.webhookEndpoint.findMany({
        where: { siteId: requireAdmin(identity, Scopes.webhooks, { write: false }) },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
    webhookEndpoint: (_root, { id }, { identity, db }) => findEndpoint(db, requireAdmin(identity, Scopes.webhooks, { write: false }), id),
    webhookDeliveries: async (_root, { endpointId, limit, offset }, { identity, db }) => {
      const endpoint = await findEndpoint(db, requireAdmin(identity, Scopes.webhooks, { write: false }), endpointId);
      return db.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...paging(limit, offset) });
    },
  },
  Mutation: {
    createWebhookEndpoint: async (_root, { input }, { identity, db, config }) => {
      const siteId = requireAdmin(identity, Scopes.webhooks, { write: true });
      const { url, description } = checkEndpointFields(input, outboundPolicy(config));
      if (!url) throw badInput('url is required', 'url');
      const secret = newWebhookSecret();
      const now = new Date();
      const endpoint = await db.webhookEndpoint.create({
        data: {
          id: newId(),
          siteId,
          url,
          events: checkEvents(input.events),
          description: description ?? '',
          sealedSecret: sealSecret(secret, config.encryptionKey),
          active: input.active ?? true,
          createdAt: now,
          updatedAt: now,
        },
      });
      return { ...endpoint, secret };
    },
    updateWebhookEndpoint: async (_root, { id, input }, { identity, db, config }) => {
      const current = await findEndpoint(db, requireAdmin(identity, Scopes.webhooks, { write: true }), id);
      const { url, description } = checkEndpointFields(input, outboundPolicy(config));
      return db.webhookEndpoint.update({
        where: { id: current.id },
        data: {
          url,
          description,
          events: input.events ? checkEvents(input.events) : undefined,
          active: input.active ?? undefined,
          updatedAt: new Date(),
        },
      });
    },
    deleteWebhookEndpoint: async (_root, { id }, { identity, db }) => {
      const endpoint = await findEndpoint(db, requireAdmin(identity, Scopes.webhooks, { write: true }), id);
      // Deliveries still pending go with it; delivered ones are history and go too.
      await db.$transaction([db.webhookDelivery.deleteMany({ where: { endpointId: endpoint.id } }), db.webhookEndpoint.delete({ where: { id: endpoint.id } })]);
      return { id: endpoint.id, success: true };
    },
    rotateWebhookSecret: async (_root, { id }, { identity, db, config }) => {
      const current = await findEndpoint(db, requireAdmin(identity, Scopes.webhooks, { write: true }), id);
      const secret = newWebhookSecret();
      const endpoint = await db.webhookEndpoint.update({
        where: { id: current.id },
        data: { sealedSecret: sealSecret(secret, config.encryptionKey), updatedAt: new Date() },
      });
      return { ...endpoint, secret };
    },
  },
  WebhookEndpoint: {
    events: (endpoint) => stringList(endpoint.events),
    secret: (endpoint) => endpoint.secret ?? null,
    ...timestamps,
  },
  WebhookDelivery: {
    status: (delivery) => delivery.status as WebhookDeliveryStatus,
    nextAttemptAt: (delivery) => (delivery.status === 'pending' ? delivery.nextAttemptAt.getTime() : null),
    deliveredAt: (delivery) => delivery.deliveredAt?.getTime() ?? null,
    created: (delivery) => delivery.createdAt.getTime(),
  },
};
