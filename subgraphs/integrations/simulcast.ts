/**
 * Simulcast (ours; docs/show.md, "Simulcast"): the platforms a stream is relayed to while live. An admin gives
 * them with the stream (createStream, updateStream); each target's URL is an outbound address like any partner's
 * (shared/outbound.ts), its key is kept encrypted like the contracts' tokens (secrets.ts) and handed only to the
 * provider, never returned. The provider reports each target's state with a webhook of its own type
 * (`simulcast`), ordered per target by the provider's time, apart from the seed's connected/active/… order.
 */
import type { SimulcastState, SimulcastTargetStatus } from '../../shared/contracts/liveEvents';
import type { SimulcastTarget, Stream, StreamProviderContract } from '../../shared/db/generated/sqlite';
import { badInput, conflict } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { checkOutboundUrl, outboundPolicy, RTMP_SCHEMES } from '../../shared/outbound';
import type { SubgraphContext } from '../../shared/subgraph';
import { decryptSecret, encryptSecret } from './secrets';
import { announceStreamState, stateOf } from './streamStates';
import type { ContractUrls } from './streamProviders';

/** The most targets one stream relays to. */
export const MAX_SIMULCAST_TARGETS = 5;
const NAME_MAX = 60;
const KEY_MAX = 500;
const URL_MAX = 2000;
/** The longest reason kept from a provider's report. */
const REASON_MAX = 300;
const STATES: readonly SimulcastState[] = ['idle', 'connecting', 'live', 'failed'];

/** A target as an admin gives it; `streamKey` may be left out on an update to keep the target's key. */
export interface SimulcastTargetInput {
  name: string;
  url: string;
  streamKey?: string | null;
}

/** A checked target with its key in clear: what the provider is handed. */
export interface SimulcastTargetSpec {
  name: string;
  url: string;
  streamKey: string;
}

/**
 * Checks the list an admin gave: at most MAX_SIMULCAST_TARGETS, names 1..60 characters and unique, URLs rtmp(s)
 * on an address partners may be called at, keys 1..500 characters. `keptKeys` (name → key in clear) are the
 * stream's current keys: a target named without a key keeps its own. 400 names the field.
 */
export function checkSimulcastTargets(
  ctx: Pick<SubgraphContext, 'config'>,
  given: readonly SimulcastTargetInput[],
  keptKeys: ReadonlyMap<string, string> = new Map(),
): SimulcastTargetSpec[] {
  if (given.length > MAX_SIMULCAST_TARGETS)
    throw badInput(`simulcastTargets must hold at most ${MAX_SIMULCAST_TARGETS} targets (got ${given.length})`, 'simulcastTargets');
  const names = new Set<string>();
  return given.map((target, index) => {
    const field = `simulcastTargets[${index}]`;
    const name = typeof target.name === 'string' ? target.name.trim() : '';
    if (name.length < 1 || name.length > NAME_MAX) throw badInput(`${field}.name must be 1 to ${NAME_MAX} characters`, `${field}.name`);
    if (names.has(name)) throw badInput(`${field}.name "${name}" names another target of the list already: names must be unique`, `${field}.name`);
    names.add(name);
    if (typeof target.url !== 'string' || target.url.length > URL_MAX)
      throw badInput(`${field}.url must be rtmp:// or rtmps:// (at most ${URL_MAX} characters)`, `${field}.url`);
    checkOutboundUrl(target.url, `${field}.url`, outboundPolicy(ctx.config), RTMP_SCHEMES);
    const streamKey = target.streamKey ?? keptKeys.get(name);
    if (streamKey === undefined) throw badInput(`${field}.streamKey is required for a new target`, `${field}.streamKey`);
    if (streamKey.length < 1 || streamKey.length > KEY_MAX) throw badInput(`${field}.streamKey must be 1 to ${KEY_MAX} characters`, `${field}.streamKey`);
    return { name, url: target.url, streamKey };
  });
}

/** A contract whose provider does not simulcast is a CONFLICT naming it. */
export function requireSimulcast(contract: StreamProviderContract): void {
  if (!(contract.urls as ContractUrls).setSimulcastTargets) {
    throw conflict(`the streaming provider "${contract.name}" does not simulcast: its contract has no setSimulcastTargets URL`);
  }
}

/** A state the provider reported for a target, as of `at` (provider time). */
export interface SimulcastReport {
  name: string;
  state: SimulcastState;
  reason?: string | null;
}

/**
 * Rows of a stream's targets, keys encrypted, in the admin's order; `reports` (the provider's answer, read with
 * care: an entry that is not a report of a known state is ignored) give their states when known.
 */
export function simulcastRows(ctx: Pick<SubgraphContext, 'config'>, siteId: string, targets: readonly SimulcastTargetSpec[], reports: readonly unknown[] = []) {
  const known = reports.filter((entry): entry is SimulcastReport => (STATES as readonly unknown[]).includes((entry as SimulcastReport | null)?.state));
  return targets.map((target, position) => {
    const report = known.find((entry) => entry.name === target.name);
    return {
      id: newId(),
      siteId,
      position,
      name: target.name,
      url: target.url,
      streamKeyEncrypted: encryptSecret(target.streamKey, ctx.config.encryptionKey),
      state: report?.state ?? 'idle',
      reason: report?.state === 'failed' ? reasonOf(report.reason) : null,
      stateChangedAt: null,
    };
  });
}

const reasonOf = (reason: unknown) => (typeof reason === 'string' && reason !== '' ? reason.slice(0, REASON_MAX) : 'the relay failed');

/** The keys of a stream's targets in clear, by name: what an update keeps for a target named without one. */
export async function simulcastKeys(ctx: SubgraphContext, streamId: string): Promise<Map<string, string>> {
  const targets = await ctx.db.simulcastTarget.findMany({ where: { streamId } });
  return new Map(targets.map((target) => [target.name, decryptSecret(target.streamKeyEncrypted, ctx.config.encryptionKey)]));
}

/** A target as admins read it (never its key). */
export const simulcastStatusOf = (target: SimulcastTarget): SimulcastTargetStatus => ({
  name: target.name,
  url: target.url,
  state: target.state as SimulcastState,
  reason: target.reason,
  stateChanged: target.stateChangedAt?.getTime() ?? null,
});

/** A stream's targets as admins read them, in the admin's order. */
export async function simulcastTargetsOf(ctx: Pick<SubgraphContext, 'db'>, streamId: string): Promise<SimulcastTargetStatus[]> {
  const targets = await ctx.db.simulcastTarget.findMany({ where: { streamId }, orderBy: { position: 'asc' } });
  return targets.map(simulcastStatusOf);
}

/** Tells admins watching the stream what its targets are now. */
export async function announceSimulcast(ctx: SubgraphContext, stream: Stream, change: 'simulcast' | 'updated', time: number): Promise<void> {
  announceStreamState(ctx, stream, change, time, await simulcastTargetsOf(ctx, stream.id));
}

/**
 * A provider's `simulcast` webhook: moves the named target's state when the report is newer than the one behind
 * it. A target removed meanwhile is no error (the provider reported before it heard): nothing changes.
 */
export async function receiveSimulcastReport(ctx: SubgraphContext, stream: Stream, report: SimulcastReport | null | undefined, at: Date) {
  if (!report) throw badInput('simulcastTarget is required with type simulcast', 'simulcastTarget');
  if (!STATES.includes(report.state)) throw badInput(`simulcastTarget.state must be one of ${STATES.join(', ')}`, 'simulcastTarget.state');
  const applied = await ctx.db.simulcastTarget.updateMany({
    where: { streamId: stream.id, name: report.name, OR: [{ stateChangedAt: null }, { stateChangedAt: { lt: at } }] },
    data: { state: report.state, reason: report.state === 'failed' ? reasonOf(report.reason) : null, stateChangedAt: at, updatedAt: new Date() },
  });
  if (applied.count === 1) await announceSimulcast(ctx, stream, 'simulcast', at.getTime());
  return { success: true, changed: applied.count === 1, state: stateOf(stream) };
}
