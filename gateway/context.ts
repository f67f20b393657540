/** The gateway's request context: who is calling, as built from the C / D / J headers. */
import type { Identity } from '../shared/auth/identity';

export interface GatewayContext {
  identity: Identity;
}
