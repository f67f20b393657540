/**
 * Sends finished spans to an OpenTelemetry collector's OTLP/HTTP receiver in the JSON encoding, made by
 * OpenTelemetry's own serializer (@opentelemetry/otlp-transformer) and POSTed with Node's fetch. The
 * stock exporter loads `http` through a dynamic import() that jest's module sandbox cannot run, so the
 * path the tests prove would not be the path production takes; this one is the same in both.
 */
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';

/** ExportResultCode of @opentelemetry/core. */
const SUCCESS = 0;
const FAILED = 1;

export class OtlpJsonSpanExporter implements SpanExporter {
  private readonly sending = new Set<Promise<void>>();

  /** `url` is the collector's traces URL (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`). */
  constructor(
    private readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (!body) {
      done({ code: FAILED, error: new Error('spans could not be encoded') });
      return;
    }
    const sent = fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(this.timeoutMs) }).then(
      async (response) => {
        await response.body?.cancel();
        done(response.ok ? { code: SUCCESS } : { code: FAILED, error: new Error(`the collector answered ${response.status}`) });
      },
      (error: Error) => done({ code: FAILED, error }),
    );
    this.sending.add(sent);
    void sent.finally(() => this.sending.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.sending);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
  }
}
