/** GraphQL types of the integrations subgraph mapped to Prisma models. */
import type { DataEvent, DataProvider, LiveBroadcast, Stream, StreamProviderContract } from '../../shared/db/generated/sqlite';
import { type StreamStateEvent } from '../../shared/contracts/liveEvents';

export type DataProviderModel = DataProvider;
export type DataEventModel = DataEvent;
/** A contract; right after an update that made a new signing key, it carries that key in clear, once. */
export type StreamProviderContractModel = StreamProviderContract & { playbackSigning?: PlaybackSigningModel | null };
export type PlaybackSigningModel = { scheme: string; keyId: string; key: string };
export type StreamModel = Stream;
export type LiveBroadcastModel = LiveBroadcast;
export type StreamStateEventModel = StreamStateEvent;
