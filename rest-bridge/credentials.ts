/** The headers of the seeds' Auth codes, and the REST bridge's check that a route's credentials are present. */
import type { HeaderBag } from '../shared/auth/authenticate';
import { RequestError } from './requestError';
import type { AuthCode, RouteSpec } from './table';

/** The header each Auth code travels in. */
export const HEADER_OF: Record<AuthCode, string> = { C: 'x-service-client-id', D: 'x-service-developer-key', J: 'authorization', S: 'super-api-key' };
const HEADER_LABEL: Record<AuthCode, string> = { C: 'x-service-client-id', D: 'x-service-developer-key', J: 'Authorization: Bearer <JWT>', S: 'super-api-key' };

/** The route's Auth codes, checked for presence only: one alternative must be fully present (else a 401 RequestError). */
export function checkCredentialsPresent(spec: RouteSpec, headers: HeaderBag): void {
  if (spec.auth.length === 0) return;
  const present = (code: AuthCode) => Boolean(headers[HEADER_OF[code]]);
  if (spec.auth.some((codes) => codes.every(present))) return;
  const wanted = spec.auth.map((codes) => codes.map((code) => HEADER_LABEL[code]).join(' + ')).join(', or ');
  throw new RequestError(401, `credentials required: ${wanted}`);
}
