/**
 * Data providers: the checks of their fields (the schema must itself be a valid JSON Schema), and the
 * cache the ingestion path reads them from — secret decrypted and schema compiled once per provider,
 * dropped on every instance when the provider is updated or removed.
 */
import Ajv, { type AnySchema, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { GraphQLError } from 'graphql';
import { Topics } from '../../shared/bus';
import type { Db } from '../../shared/db/client';
import type { Prisma } from '../../shared/db/generated/sqlite';
import { badInput, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { parseJsonInput } from '../../shared/jsonInput';
import type { SubgraphContext } from '../../shared/subgraph';
import { LoadCache } from './cache';
import { linearRegExp, provePatterns } from './eventSchemaPatterns';
import { decryptSecret, encryptSecret, newDataProviderSecret, verifyProviderSignature } from './secrets';

/** The fields a provider registers and may update. */
export interface DataProviderFields {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  ownerName: string;
  ownerEmail: string;
  realtime: boolean;
  ttl: number | null;
  tags: string[];
}

export const DATA_PROVIDER_FIELDS = ['name', 'description', 'schema', 'ownerName', 'ownerEmail', 'realtime', 'ttl', 'tags'] as const;
/** The largest ttl: a GraphQL Int. */
const MAX_TTL_SECONDS = 2_147_483_647;
const REQUIRED_FIELDS = ['name', 'description', 'schema', 'ownerName', 'ownerEmail', 'realtime'] as const;

// Providers' schemas are theirs: unknown keywords are allowed, and a schema's $id is not kept in the
// instance, so two providers may use the same one. Draft-07 by default, 2020-12 when $schema says so.
// Patterns run only when proven linear (eventSchemaPatterns.ts).
const options = { allErrors: false, strict: false, addUsedSchema: false, code: { regExp: linearRegExp } } as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);
addFormats(draft07);
addFormats(draft2020);

const ajvFor = (schema: Record<string, unknown>) => (typeof schema.$schema === 'string' && schema.$schema.includes('2020-12') ? draft2020 : draft07);

/**
 * Compiles a provider's JSON Schema; an invalid one, or one with a pattern not proven linear-time, is
 * BAD_USER_INPUT naming `schema`.
 */
export async function compileEventSchema(schema: unknown): Promise<ValidateFunction> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw badInput('schema must be a JSON Schema object', 'schema');
  const ajv = ajvFor(schema as Record<string, unknown>);
  if (!ajv.validateSchema(schema)) {
    throw badInput(`schema is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`, 'schema');
  }
  await provePatterns(schema);
  try {
    return ajv.compile(schema as AnySchema);
  } catch (error) {
    if (error instanceof GraphQLError) throw error;
    throw badInput(`schema is not a valid JSON Schema: ${(error as Error).message}`, 'schema');
  } finally {
    // Ajv remembers every compiled schema object; providers are reloaded, so it must forget them.
    ajv.removeSchema(schema);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function text(value: unknown, field: string, max = 500): string {
  if (typeof value !== 'string' || value.trim() === '') throw badInput(`${field} must be a non-empty string`, field);
  if (value.length > max) throw badInput(`${field} must be at most ${max} characters`, field);
  return value.trim();
}

/**
 * Checks the given fields (all required unless `partial`); unknown fields are refused, so a signed
 * update cannot carry anything the provider did not mean to change.
 */
export async function checkDataProviderFields(given: Record<string, unknown>, { partial }: { partial: boolean }): Promise<Partial<DataProviderFields>> {
  for (const field of Object.keys(given)) {
    if (!(DATA_PROVIDER_FIELDS as readonly string[]).includes(field))
      throw badInput(`${field} is not allowed (fields: ${DATA_PROVIDER_FIELDS.join(', ')})`, field);
  }
  if (!partial) {
    for (const field of REQUIRED_FIELDS) if (given[field] === undefined || given[field] === null) throw badInput(`${field} is required`, field);
  }
  const checked: Partial<DataProviderFields> = {};
  if (given.name !== undefined) checked.name = text(given.name, 'name', 200);
  if (given.description !== undefined) checked.description = text(given.description, 'description', 2000);
  if (given.ownerName !== undefined) checked.ownerName = text(given.ownerName, 'ownerName', 200);
  if (given.ownerEmail !== undefined) {
    checked.ownerEmail = text(given.ownerEmail, 'ownerEmail', 320);
    if (!EMAIL.test(checked.ownerEmail)) throw badInput('ownerEmail must be an e-mail address', 'ownerEmail');
  }
  if (given.realtime !== undefined) {
    if (typeof given.realtime !== 'boolean') throw badInput('realtime must be true or false', 'realtime');
    checked.realtime = given.realtime;
  }
  if (given.ttl !== undefined) {
    // At most a GraphQL Int (about 68 years): whatever is stored must be readable back as one.
    if (given.ttl !== null && (!Number.isInteger(given.ttl) || (given.ttl as number) < 1 || (given.ttl as number) > MAX_TTL_SECONDS)) {
      throw badInput(`ttl must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}, or null for no expiration`, 'ttl');
    }
    checked.ttl = given.ttl as number | null;
  }
  if (given.tags !== undefined && given.tags !== null) {
    if (!Array.isArray(given.tags) || !given.tags.every((tag) => typeof tag === 'string' && tag.trim() !== '')) {
      throw badInput('tags must be an array of non-empty strings', 'tags');
    }
    checked.tags = given.tags.map((tag: string) => tag.trim());
  }
  if (given.schema !== undefined) {
    await compileEventSchema(given.schema);
    checked.schema = given.schema as Record<string, unknown>;
  }
  return checked;
}

/** What ingestion needs of a provider, ready to use. */
export interface ActiveDataProvider {
  id: string;
  siteId: string;
  secret: string;
  validate: ValidateFunction;
  ttl: number | null;
}

/**
 * Active providers by ID, loaded once and kept for a minute at most; a removed or unknown provider is
 * cached as null. `drop` is called here on update and removal, and on every instance through the bus.
 */
export class DataProviderCache {
  private readonly cache = new LoadCache<ActiveDataProvider | null>(60_000);

  constructor(
    private readonly db: Db,
    private readonly encryptionKey: string,
  ) {}

  get(id: string): Promise<ActiveDataProvider | null> {
    return this.cache.get(id, () => this.load(id));
  }

  drop(id: string): void {
    this.cache.drop(id);
  }

  private async load(id: string): Promise<ActiveDataProvider | null> {
    const row = await this.db.dataProvider.findUnique({ where: { id } });
    if (!row || row.removedAt) return null;
    return {
      id: row.id,
      siteId: row.siteId,
      secret: decryptSecret(row.secretEncrypted, this.encryptionKey),
      validate: await compileEventSchema(row.schema),
      ttl: row.ttl,
    };
  }
}

// ---------------------------------------------------------------- registration, signed update, removal

/** What changing a provider needs of the subgraph's runtime: the cache it drops the provider from. */
export interface ProviderCacheHolder {
  dataProviders: DataProviderCache;
}

async function announceProviderChange(ctx: SubgraphContext, runtime: ProviderCacheHolder, dataProviderId: string): Promise<void> {
  runtime.dataProviders.drop(dataProviderId);
  try {
    await ctx.bus.publish(Topics.dataProviderChanged, { dataProviderId });
  } catch (error) {
    ctx.logger.warn({ err: (error as Error).message }, 'could not announce a data provider change');
  }
}

/** Registers a provider of the site; the secret is returned here only, and stored encrypted. */
export async function registerDataProvider(ctx: SubgraphContext, siteId: string, input: Record<string, unknown>) {
  const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const fields = (await checkDataProviderFields(given, { partial: false })) as DataProviderFields;
  const secret = newDataProviderSecret();
  const now = new Date();
  const provider = await ctx.db.dataProvider.create({
    data: {
      id: newId(),
      siteId,
      name: fields.name,
      description: fields.description,
      schema: fields.schema as Prisma.InputJsonValue,
      ownerName: fields.ownerName,
      ownerEmail: fields.ownerEmail,
      realtime: fields.realtime,
      ttl: fields.ttl ?? null,
      tags: fields.tags ?? [],
      secretEncrypted: encryptSecret(secret, ctx.config.encryptionKey),
      createdAt: now,
      updatedAt: now,
    },
    select: { id: true },
  });
  return { dataProviderId: provider.id, secret };
}

/** A provider that is not removed, with its secret; NOT_FOUND otherwise (update and removal answer 404). */
async function signedProvider(ctx: SubgraphContext, id: string) {
  const row = await ctx.db.dataProvider.findUnique({ where: { id } });
  if (!row || row.removedAt) throw notFound(`data provider ${id}`);
  return { row, secret: decryptSecret(row.secretEncrypted, ctx.config.encryptionKey) };
}

/** A provider's own update, signed over the exact body; answers with the (unchanged) secret. */
export async function updateDataProvider(
  ctx: SubgraphContext,
  runtime: ProviderCacheHolder,
  id: string,
  signature: string | null | undefined,
  rawBody: string,
) {
  const { row, secret } = await signedProvider(ctx, id);
  verifyProviderSignature(secret, rawBody, signature);
  const parsed = parseJsonInput(rawBody, 'body');
  if ('error' in parsed) throw badInput(parsed.error, 'body');
  const given = parsed.value;
  if (!given || typeof given !== 'object' || Array.isArray(given)) throw badInput('the body must be a JSON object', 'body');
  const fields = await checkDataProviderFields(given as Record<string, unknown>, { partial: true });
  await ctx.db.dataProvider.update({
    where: { id: row.id },
    data: { ...fields, schema: fields.schema as Prisma.InputJsonValue | undefined, updatedAt: new Date() },
  });
  await announceProviderChange(ctx, runtime, row.id);
  return { dataProviderId: row.id, secret };
}

/** A provider's own removal, signed over its ID: its events are refused (403) from now on. */
export async function removeDataProvider(ctx: SubgraphContext, runtime: ProviderCacheHolder, id: string, signature: string | null | undefined) {
  const { row, secret } = await signedProvider(ctx, id);
  verifyProviderSignature(secret, row.id, signature);
  await ctx.db.dataProvider.update({ where: { id: row.id }, data: { removedAt: new Date() } });
  await announceProviderChange(ctx, runtime, row.id);
  return { success: true, dataProviderId: row.id };
}
