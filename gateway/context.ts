/** The gateway's request context: who is calling, as built from the C / D / J headers. */
import type { Identity } from '../shared/auth/identity';

export interface GatewayContext {
  identity: Identity;
  /**
   * The identity as signed for this request's subgraph fetches over HTTP: a deep plan makes several
   * fetches and each would otherwise sign (serialize + HMAC) the same identity again.
   */
  signedIdentity?: { header: string; signedAt: number };
}
