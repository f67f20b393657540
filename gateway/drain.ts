/**
 * The drain of an instance that was asked to stop (SIGTERM): from its first moment /ready answers
 * 503, so the balancer's health checks take the instance out; for a grace period it goes on answering
 * everything (the balancer still sends requests until its checks fail), each answer with
 * `Connection: close` so keep-alive clients and the balancer's pooled connections move to other
 * instances; then the port closes, requests in flight finish, and viewer sockets close with 1012
 * (Service Restart), which graphql-ws clients and the embed retry, through the balancer, elsewhere.
 */
import type { RequestHandler } from 'express';

/** The WebSocket close code of a drain: "Service Restart", a code graphql-ws clients retry. */
export const DRAIN_CLOSE_CODE = 1012;

export class Drain {
  private startedAt: number | null = null;

  /** True from the moment the drain began. */
  get draining(): boolean {
    return this.startedAt !== null;
  }

  /** Seconds since the drain began; 0 while the instance serves (the gauge stagegraph_draining_seconds). */
  secondsDraining(): number {
    return this.startedAt === null ? 0 : (Date.now() - this.startedAt) / 1000;
  }

  /** Begins the drain; later calls change nothing. */
  start(): void {
    this.startedAt ??= Date.now();
  }

  /** Asks every client answered during the drain to close its connection after the answer. */
  readonly closeConnections: RequestHandler = (_req, res, next) => {
    if (this.startedAt !== null) res.setHeader('Connection', 'close');
    next();
  };
}
