/** GraphQL types of the integrations subgraph mapped to Prisma models. */
import type { DataEvent, DataProvider, LiveBroadcast, Stream, StreamProviderContract } from '../../shared/db/generated/sqlite';
import { type StreamStateEvent } from '../../shared/contracts/liveEvents';

export type DataProviderModel = DataProvider;
export type DataEventModel = DataEvent;
export type StreamProviderContractModel = StreamProviderContract;
export type StreamModel = Stream;
export type LiveBroadcastModel = LiveBroadcast;
export type StreamStateEventModel = StreamStateEvent;
