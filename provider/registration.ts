/**
 * `register`: the seed's one-time registration of this provider with a site of the service
 * (`POST {service}/streamprovider/v1/register`, the site ID and developer key). The contract names this
 * provider's own operation URLs; the answer's `authorization` is kept in the state folder (0600) with
 * the service URL, and only the contract ID is printed. A second registration is refused: the seed
 * makes it a one-time event, and the token must not be replaced under running streams.
 */
import { PLAYBACK_SIGNING_SCHEME } from '../shared/playbackSigning';
import type { ProviderConfig } from './config';
import { operationUrl, PROVIDER_OPERATIONS } from './api';
import { publicBase } from './server';
import { readRegistration, writeRegistration } from './state';

export interface RegisterOptions {
  serviceUrl: string;
  siteId: string;
  developerKey: string;
  /** The contract's name, unique on the site (default: "Reference provider <host>:<port>"). */
  name?: string;
}

/** Registers and keeps the token; resolves to the contract ID, or throws with a message for the operator. */
export async function registerProvider(config: ProviderConfig, options: RegisterOptions): Promise<string> {
  const existing = readRegistration(config.stateDir);
  if (existing) {
    throw new Error(
      `this provider is already registered (contract ${existing.contractId} at ${existing.serviceUrl}); registration is once — remove ${config.stateDir}/registration.json to start over`,
    );
  }
  if (config.port === 0) throw new Error("PROVIDER_PORT must name the port the provider will serve on: the contract's URLs carry it");
  let service: URL;
  try {
    service = new URL(options.serviceUrl);
  } catch {
    throw new Error(`--service must be the service's http(s) URL, got "${options.serviceUrl}"`);
  }
  if (service.protocol !== 'http:' && service.protocol !== 'https:') throw new Error('--service must be an http(s) URL');
  const base = publicBase(config);
  const urls = Object.fromEntries(PROVIDER_OPERATIONS.map((operation) => [operation, operationUrl(base, operation)]));
  const response = await fetch(new URL('/streamprovider/v1/register', service), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-client-id': options.siteId, 'x-service-developer-key': options.developerKey },
    body: JSON.stringify({
      name: options.name ?? `Reference provider ${config.publicHost}:${config.port}`,
      urls,
      accountCredentials: {},
      useAccount: false,
      ...(config.signedPlayback ? { playbackSigning: { scheme: PLAYBACK_SIGNING_SCHEME } } : {}),
    }),
    signal: AbortSignal.timeout(config.callTimeoutMs),
  }).catch((error: Error & { cause?: Error }) => {
    throw new Error(`could not reach the service at ${service.origin}: ${error.cause?.message ?? error.message}`);
  });
  const text = await response.text();
  let answer: { id?: string; authorization?: string; message?: string; playbackSigning?: { keyId: string; key: string } | null } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    // reported below
  }
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`the service refused the registration (${response.status}): ${answer.message ?? text.slice(0, 300)}`);
  if (!answer.id || !answer.authorization) throw new Error("the service's answer has no id or authorization");
  if (config.signedPlayback && !answer.playbackSigning) throw new Error("the service's answer has no playbackSigning key");
  const playbackKey = answer.playbackSigning ? { keyId: answer.playbackSigning.keyId, key: answer.playbackSigning.key } : undefined;
  await writeRegistration(config.stateDir, {
    serviceUrl: service.origin,
    siteId: options.siteId,
    contractId: answer.id,
    authorization: answer.authorization,
    ...(playbackKey ? { playbackKey } : {}),
  });
  return answer.id;
}
