/**
 * How the REST bridge reaches the gateway: in one process (gateway/serve.ts) or over HTTP
 * (rest-bridge/index.ts). Its own module so the router and the quick routes (quickRoutes.ts) share it.
 */
import type { ExecutionResult } from 'graphql';
import type { HeaderBag } from '../shared/auth/authenticate';
import type { QuickAnswerName } from '../shared/quickAnswers';
import type { RouteSpec } from './table';

/**
 * How the bridge reaches the gateway. `authenticate` runs before any input is read, so a caller
 * without valid credentials learns nothing about the route's validation; it throws a GraphQLError
 * with a code. `execute` runs the operation as that caller.
 */
export interface Executor<Caller = unknown> {
  authenticate(headers: HeaderBag): Promise<Caller>;
  execute(request: OperationRequest, caller: Caller): Promise<ExecutionResult>;
  /**
   * Runs an operation that one subgraph answers whole on that subgraph, when it runs in this process
   * (see `subgraph` in table.ts); absent or answering null = through `execute`.
   */
  executeOn?(subgraph: NonNullable<RouteSpec['subgraph']>, request: OperationRequest, caller: Caller): Promise<ExecutionResult> | null;
  /**
   * The quick answer named by the route (`quick` in table.ts) for these variables, when a subgraph of
   * this process offers it: the root field's value, field by field; null (or absent) = execute.
   */
  quick?(name: QuickAnswerName, variables: Record<string, unknown>, caller: Caller): Promise<Record<string, unknown> | null>;
  /** Told each time a quick answer was sent instead of executing (it picked exactly). */
  quickAnswered?(name: QuickAnswerName): void;
}

/** A route's operation as the bridge runs it; `operationName` is the name its document gives it. */
export interface OperationRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}
