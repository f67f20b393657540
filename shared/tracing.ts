/**
 * Traces (OpenTelemetry) and the trace id every log line of a request carries.
 *
 * Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then the Node SDK is loaded (only then, so
 * an instance without a collector pays for nothing but the no-op @opentelemetry/api), registered as the
 * global tracer provider (@apollo/gateway's own spans for plans and fetches start to record), and spans
 * go to `<endpoint>/v1/traces` as OTLP JSON. Each HTTP request is one server span, parented on the
 * caller's W3C `traceparent` when it sent one.
 *
 * Logs join traces either way: with tracing off the request's trace id is the caller's `traceparent`
 * trace id, or a new one, kept in an AsyncLocalStorage and passed on to subgraphs called over HTTP.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { randomHex } from './ids';

interface TracerProviderHandle {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The registered SDK provider; null while tracing is off. */
let provider: TracerProviderHandle | null = null;
/** The trace of the request being served when tracing is off (what log lines carry). */
const requestTrace = new AsyncLocalStorage<{ traceId: string }>();
const tracer = () => trace.getTracer('stagegraph');

/**
 * Starts exporting spans to an OTLP/HTTP collector at `endpoint` (once per process; later calls with
 * the same endpoint do nothing). `null` leaves tracing off.
 */
export function startTracing(endpoint: string | null, serviceName = 'stagegraph'): void {
  if (!endpoint || provider) return;
  // Loaded here, not imported at the top: with tracing off the SDK is never loaded.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { OtlpJsonSpanExporter } = require('./otlpExporter') as typeof import('./otlpExporter');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const exporter = new OtlpJsonSpanExporter(`${endpoint}/v1/traces`);
  const sdk = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  // Registers the AsyncLocalStorage context manager and the W3C trace-context propagator too.
  sdk.register();
  provider = sdk;
}

/** Whether spans are recorded and exported in this process (OTEL_EXPORTER_OTLP_ENDPOINT was set). */
export function tracingEnabled(): boolean {
  return provider !== null;
}

/** Sends the spans still buffered (before a stack stops, and in tests). */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush();
}

/** The trace id of the work running now: the active span's, else the request's; undefined outside a request. */
export function currentTraceId(): string | undefined {
  if (provider) {
    const span = trace.getActiveSpan();
    if (span) return span.spanContext().traceId;
  }
  return requestTrace.getStore()?.traceId;
}

/** The trace id a request runs under with tracing off: its caller's (`traceparent`), else a new one. */
export function requestTraceIdOf(traceparent: string | undefined): string {
  return traceIdOf(traceparent) ?? randomHex(16);
}

const UNTRACED_PATHS = new Set(['/health', '/ready', '/metrics']);
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);

/** The trace id of a W3C `traceparent` header, or null when it is missing or malformed. */
export function traceIdOf(traceparent: string | undefined): string | null {
  const match = traceparent ? TRACEPARENT.exec(traceparent.trim()) : null;
  if (!match || match[1] === ZERO_TRACE || match[2] === '0'.repeat(16)) return null;
  return match[1];
}

/** Runs a request's work with tracing off: its log lines carry its caller's trace id (`traceparent`) or a new one. */
export function runUntraced<T>(traceparent: string | undefined, work: () => T): T {
  return requestTrace.run({ traceId: requestTraceIdOf(traceparent) }, work);
}

/**
 * Express middleware that opens a request's trace: with tracing on, a server span (parented on the
 * caller's `traceparent`) active for everything the request runs; with tracing off, only the trace id
 * for log lines. The route template (res.locals.route) names the span when the request ends.
 */
export function traceRequests(attributes: Attributes = {}): RequestHandler {
  return (req, res, next) => {
    // Probes and scrapes every few seconds would bury the traces worth reading; their log lines keep an id.
    if (!provider || UNTRACED_PATHS.has(req.path)) {
      runUntraced(req.header('traceparent'), next);
      return;
    }
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(req.method, { kind: SpanKind.SERVER, attributes: { ...attributes, 'http.request.method': req.method } }, parent);
    res.once('close', () => {
      const route = res.locals.route as string | undefined;
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}

/**
 * Adds the current trace to the headers of a call to another service (`traceparent`), so its spans and
 * log lines join the caller's trace. With tracing off it passes the request's trace id on.
 */
export function injectTraceHeaders(set: (name: string, value: string) => void): void {
  if (provider) {
    propagation.inject(context.active(), undefined, { set: (_carrier, name, value) => set(name, value) });
    return;
  }
  const store = requestTrace.getStore();
  if (store) set('traceparent', `00-${store.traceId}-${randomHex(8)}-00`);
}

/** The `traceparent` of the span active now, to carry in a bus message; undefined with tracing off. */
export function activeTraceparent(): string | undefined {
  if (!provider || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * Runs `work` inside a span named `name` when tracing is on; otherwise just runs it. With `onlyInTrace`
 * the span is made only inside a trace already running (a database query of a request, not of a timer).
 */
export function withSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>, onlyInTrace = false): Promise<T> {
  if (!provider || (onlyInTrace && !trace.getActiveSpan())) return work();
  return tracer().startActiveSpan(name, { attributes }, async (span: Span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` (synchronous) as the root span of its own trace, linked to the trace that caused it (the
 * `traceparent` carried by a bus message): a broadcast's delivery links back to the call that made it.
 */
export function withLinkedSpan(name: string, traceparent: string | undefined, attributes: Attributes, work: () => void): void {
  if (!provider || !traceparent) {
    work();
    return;
  }
  const cause = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  const span = tracer().startSpan(name, { kind: SpanKind.CONSUMER, attributes, links: cause ? [{ context: cause }] : [] }, ROOT_CONTEXT);
  try {
    context.with(trace.setSpan(ROOT_CONTEXT, span), work);
  } finally {
    span.end();
  }
}
