/** Community flows the community tests share, all through the public REST paths. */
import type { Stack } from '../../stack';
import { rest } from './http';
import type { TestSite } from './stack';

export const PASSWORD = 'correct horse battery';

/** Headers of a viewer: the site ID, and the JWT when given. */
export function viewer(site: TestSite, jwt?: string): Record<string, string> {
  return jwt ? { 'x-service-client-id': site.siteId, authorization: `Bearer ${jwt}` } : { 'x-service-client-id': site.siteId };
}

let counter = 0;

export interface Member {
  accountId: string;
  email: string;
  jwt: string;
  refreshToken: string;
}

/** Signs a new person up and in; e-mail unique per call unless given. */
export async function join(stack: Stack, site: TestSite, options: { email?: string; name?: string; marketingOptin?: boolean } = {}): Promise<Member> {
  counter += 1;
  const email = options.email ?? `member${counter}-${Date.now()}@example.test`;
  const signUp = await rest(stack, 'POST', '/account/v3/', {
    headers: viewer(site),
    body: { email, password: PASSWORD, name: options.name ?? `Member ${counter}`, marketingOptin: options.marketingOptin ?? false },
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${JSON.stringify(signUp.body)}`);
  const session = await rest(stack, 'POST', '/auth/v2/login', { headers: viewer(site), body: { email, password: PASSWORD } });
  if (session.status !== 200) throw new Error(`sign-in failed: ${session.status} ${JSON.stringify(session.body)}`);
  return { accountId: signUp.body._id, email, jwt: session.body.jwt, refreshToken: session.body.refreshToken };
}

/** A new entitlement (SKU) of the site, created by its developer key. */
export async function createSku(
  stack: Stack,
  site: TestSite,
  sku: string,
  options: { value?: number; currency?: string; recurrence?: string; name?: string } = {},
) {
  const reply = await rest(stack, 'POST', '/entitlement/v1/', {
    headers: site.admin,
    body: {
      sku,
      name: options.name ?? `Ticket ${sku}`,
      prices: [{ currency: options.currency ?? 'USD', value: options.value ?? 10, default: true }],
      recurrence: options.recurrence ?? 'once',
    },
  });
  if (reply.status !== 201) throw new Error(`entitlement not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { _id: string; sku: string };
}

/** The SKUs of the account's active entitlements, as the content check reads them (`me { subscriptions }`). */
export async function activeSkus(stack: Stack, site: TestSite, jwt: string): Promise<string[]> {
  const reply = await rest(stack, 'POST', '/graphql', {
    headers: viewer(site, jwt),
    body: { query: /* GraphQL */ `{ me { id subscriptions { status entitlement { sku } } } }` },
  });
  if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
  return (reply.body.data.me.subscriptions as { status: string; entitlement: { sku: string } }[])
    .filter((held) => held.status === 'active')
    .map((held) => held.entitlement.sku)
    .sort();
}

/** A purchase of `sku` (default `finals`) by the member, through POST /billing/v1/purchase; its receipt is e-mailed. */
export async function purchase(stack: Stack, site: TestSite, member: Member, body: object = {}) {
  const reply = await rest(stack, 'POST', '/billing/v1/purchase', {
    headers: site.admin,
    body: { accountId: member.accountId, sku: 'finals', paymentMethod: 'Visa •••• 4242', ...body },
  });
  if (reply.status !== 201) throw new Error(`purchase failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { subscription: { _id: string }; charge: { _id: string; chargeId: string; receiptNumber: string; amount: number } };
}
