/**
 * Streaming provider contracts: registration (the Bearer GUID is answered once; its hash finds the
 * contract of an incoming call, and an encrypted copy lets the service present it on outbound calls),
 * the provider's own modification, and calling a contract's URLs.
 */
import { randomUUID } from 'node:crypto';
import { hashToken } from '../../shared/auth/credentials';
import type { StreamProviderContract } from '../../shared/db/generated/sqlite';
import { badInput, conflict, notFound, unauthenticated } from '../../shared/errors';
import { newId } from '../../shared/ids';
import type { SubgraphContext } from '../../shared/subgraph';
import { checkOutboundUrl, outboundPolicy, type OutboundPolicy } from '../../shared/outbound';
import { newPlaybackKey, PLAYBACK_SIGNING_SCHEME, type PlaybackKey } from '../../shared/playbackSigning';
import { announceViewerReadsChanged } from '../../shared/viewerReads';
import { callProvider, isHttpUrl, type ProviderAnswer, type ProviderOperation } from './providerCalls';
import { bearerToken, decryptSecret, encryptSecret } from './secrets';

export const REQUIRED_URL_KEYS = ['createStream', 'deleteStream', 'deleteVod', 'startStream', 'stopStream'] as const;
export const OPTIONAL_URL_KEYS = ['verifyAccount', 'activateStream', 'createClip', 'setSimulcastTargets'] as const;
const URL_KEYS: readonly string[] = [...REQUIRED_URL_KEYS, ...OPTIONAL_URL_KEYS];

export type ContractUrls = Partial<Record<ProviderOperation, string>>;

export interface ContractFields {
  name: string;
  urls: ContractUrls;
  accountCredentials: Record<string, string>;
  useAccount: boolean;
}

function checkUrls(urls: Record<string, unknown>, policy: OutboundPolicy): ContractUrls {
  const checked: ContractUrls = {};
  for (const [key, value] of Object.entries(urls)) {
    if (!URL_KEYS.includes(key)) throw badInput(`urls.${key} is not an operation of the contract (${URL_KEYS.join(', ')})`, `urls.${key}`);
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string' || !isHttpUrl(value)) throw badInput(`urls.${key} must be an http(s) URL`, `urls.${key}`);
    checkOutboundUrl(value, `urls.${key}`, policy);
    checked[key as ProviderOperation] = value;
  }
  for (const key of REQUIRED_URL_KEYS) if (!checked[key]) throw badInput(`urls.${key} is required`, `urls.${key}`);
  return checked;
}

function checkCredentialLabels(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw badInput('accountCredentials must be an object of credential key -> label', 'accountCredentials');
  for (const [key, label] of Object.entries(value)) {
    if (typeof label !== 'string' || label.trim() === '') throw badInput(`accountCredentials.${key} must be a non-empty label`, `accountCredentials.${key}`);
  }
  return value as Record<string, string>;
}

/** The whole contract checked: every URL http(s), the required ones present, useAccount's needs met. */
export function checkContract(
  fields: { name: unknown; urls: Record<string, unknown>; accountCredentials: unknown; useAccount: unknown },
  policy: OutboundPolicy,
): ContractFields {
  if (typeof fields.name !== 'string' || fields.name.trim() === '') throw badInput('name must be a non-empty string', 'name');
  if (fields.name.trim().length > 200) throw badInput('name must be at most 200 characters', 'name');
  if (typeof fields.useAccount !== 'boolean') throw badInput('useAccount must be true or false', 'useAccount');
  const checked: ContractFields = {
    name: fields.name.trim(),
    urls: checkUrls(fields.urls, policy),
    accountCredentials: checkCredentialLabels(fields.accountCredentials),
    useAccount: fields.useAccount,
  };
  if (checked.useAccount) {
    if (!checked.urls.verifyAccount) throw badInput('urls.verifyAccount is required when useAccount is true', 'urls.verifyAccount');
    if (Object.keys(checked.accountCredentials).length === 0) {
      throw badInput('accountCredentials must name at least one credential when useAccount is true', 'accountCredentials');
    }
  }
  return checked;
}

async function assertNameFree(ctx: SubgraphContext, siteId: string, name: string, exceptId?: string): Promise<void> {
  const taken = await ctx.db.streamProviderContract.findFirst({
    where: { siteId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  if (taken) throw conflict(`a streaming provider named "${name}" is already registered on this site`);
}

type PlaybackSigningRequest = { scheme: string } | null | undefined;

/** A new signing key for a provider that asks for signed playback in a scheme we sign; null when it does not ask. */
function playbackKeyFor(ctx: SubgraphContext, requested: PlaybackSigningRequest) {
  if (requested === null || requested === undefined) return null;
  if (requested.scheme !== PLAYBACK_SIGNING_SCHEME) throw badInput(`playbackSigning.scheme must be ${PLAYBACK_SIGNING_SCHEME}`, 'playbackSigning.scheme');
  const key = newPlaybackKey();
  return {
    shown: { scheme: PLAYBACK_SIGNING_SCHEME, ...key },
    stored: { playbackKeyId: key.keyId, playbackKeyEncrypted: encryptSecret(key.key, ctx.config.encryptionKey) },
  };
}

/** The contract's signing key in clear, for signing viewers' URLs; null when its provider takes no signing. */
export function contractPlaybackKey(
  ctx: SubgraphContext,
  contract: Pick<StreamProviderContract, 'playbackKeyId' | 'playbackKeyEncrypted'>,
): PlaybackKey | null {
  if (!contract.playbackKeyId || !contract.playbackKeyEncrypted) return null;
  return { keyId: contract.playbackKeyId, key: decryptSecret(contract.playbackKeyEncrypted, ctx.config.encryptionKey) };
}

/** Registers a contract of the site; the answer's authorization (and signing key) are never shown again. */
export async function registerStreamProvider(
  ctx: SubgraphContext,
  siteId: string,
  input: { name: string; urls: Record<string, unknown>; accountCredentials?: unknown; useAccount: boolean; playbackSigning?: PlaybackSigningRequest },
) {
  const { playbackSigning, ...contractInput } = input;
  const fields = checkContract({ ...contractInput, accountCredentials: input.accountCredentials }, outboundPolicy(ctx.config));
  const signing = playbackKeyFor(ctx, playbackSigning);
  await assertNameFree(ctx, siteId, fields.name);
  const authorization = randomUUID();
  const now = new Date();
  const contract = await ctx.db.streamProviderContract.create({
    data: {
      id: newId(),
      siteId,
      ...fields,
      ...signing?.stored,
      authorizationHash: hashToken(authorization),
      authorizationEncrypted: encryptSecret(authorization, ctx.config.encryptionKey),
      createdAt: now,
      updatedAt: now,
    },
    select: { id: true },
  });
  return { id: contract.id, authorization, playbackSigning: signing?.shown ?? null };
}

/** The contract whose Bearer token the call carries; a missing or unknown token is UNAUTHENTICATED. */
export async function contractOfAuthorization(ctx: SubgraphContext, header: string | null | undefined): Promise<StreamProviderContract> {
  const contract = await ctx.db.streamProviderContract.findUnique({ where: { authorizationHash: hashToken(bearerToken(header)) } });
  if (!contract) throw unauthenticated('unknown streaming provider authorization');
  return contract;
}

/** The provider's own change of its contract (Bearer); URLs merge into the registered ones. */
export async function updateStreamProvider(
  ctx: SubgraphContext,
  id: string,
  header: string | null | undefined,
  input: {
    name?: string | null;
    urls?: Record<string, unknown> | null;
    accountCredentials?: unknown;
    useAccount?: boolean | null;
    playbackSigning?: PlaybackSigningRequest;
  },
) {
  const contract = await contractOfAuthorization(ctx, header);
  if (contract.id !== id) throw notFound(`streaming provider contract ${id}`);
  const fields = checkContract(
    {
      name: input.name ?? contract.name,
      urls: { ...(contract.urls as Record<string, unknown>), ...(input.urls ?? {}) },
      accountCredentials: input.accountCredentials === undefined || input.accountCredentials === null ? contract.accountCredentials : input.accountCredentials,
      useAccount: input.useAccount ?? contract.useAccount,
    },
    outboundPolicy(ctx.config),
  );
  // A new key replaces the old at once: URLs signed with the old one stop playing (rotation after a leak).
  const signing = playbackKeyFor(ctx, input.playbackSigning);
  if (fields.name !== contract.name) await assertNameFree(ctx, contract.siteId, fields.name, contract.id);
  const updated = await ctx.db.streamProviderContract.update({ where: { id: contract.id }, data: { ...fields, ...signing?.stored, updatedAt: new Date() } });
  if (signing) {
    // Every instance signs with the new key from now on (the content subgraph keeps shows per site).
    await announceViewerReadsChanged(ctx.bus, contract.siteId);
  }
  return { ...updated, playbackSigning: signing?.shown ?? null };
}

/** A contract of the site, or NOT_FOUND. */
export async function findContract(ctx: SubgraphContext, siteId: string, id: string): Promise<StreamProviderContract> {
  const contract = await ctx.db.streamProviderContract.findFirst({ where: { id, siteId } });
  if (!contract) throw notFound(`streaming provider contract ${id}`);
  return contract;
}

/** The URL a contract registered for an operation; an optional one it lacks is a CONFLICT with the contract. */
export function contractUrl(contract: StreamProviderContract, operation: ProviderOperation): string {
  const url = (contract.urls as ContractUrls)[operation];
  if (!url) throw conflict(`the streaming provider "${contract.name}" registered no ${operation} URL`);
  return url;
}

/** POSTs to the contract's URL for `operation`, presenting the contract's own Bearer token. */
export function callContract(ctx: SubgraphContext, contract: StreamProviderContract, operation: ProviderOperation, payload: object): Promise<ProviderAnswer> {
  return callProvider(operation, contractUrl(contract, operation), decryptSecret(contract.authorizationEncrypted, ctx.config.encryptionKey), payload, {
    timeoutMs: ctx.config.providerTimeoutMs,
    retries: ctx.config.providerRetries,
    logger: ctx.logger,
    policy: outboundPolicy(ctx.config),
    providerName: contract.name,
  });
}

/**
 * Customer credentials for a contract with useAccount: exactly the contract's keys, each a non-empty
 * string. Without useAccount none may be given.
 */
export function checkAccountCredentials(contract: StreamProviderContract, given: unknown): Record<string, string> | null {
  if (!contract.useAccount) {
    if (given !== undefined && given !== null)
      throw badInput('accountCredentials are only used with a contract whose useAccount is true', 'accountCredentials');
    return null;
  }
  if (!given || typeof given !== 'object' || Array.isArray(given))
    throw badInput('accountCredentials is required by this contract (useAccount)', 'accountCredentials');
  const keys = Object.keys(contract.accountCredentials as Record<string, string>);
  const values = given as Record<string, unknown>;
  for (const key of Object.keys(values))
    if (!keys.includes(key)) throw badInput(`accountCredentials.${key} is not a credential of this contract (${keys.join(', ')})`, `accountCredentials.${key}`);
  for (const key of keys) {
    if (typeof values[key] !== 'string' || values[key] === '') throw badInput(`accountCredentials.${key} is required`, `accountCredentials.${key}`);
  }
  return values as Record<string, string>;
}
