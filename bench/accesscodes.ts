/**
 * Bulk access codes, side by side in one run against one instance: one request for 100,000 codes (as
 * JSON and as CSV) next to 100 requests of 1,000 codes each, with every code checked to be unique.
 * Target (docs/design.md): 100,000 codes in one request in ≤ 5 s.
 */
import { createSite, type Instance } from './harness';

export interface BulkRun {
  codes: number;
  requests: number;
  ms: number;
  unique: boolean;
}

export interface AccessCodeFigures {
  oneRequestJson: BulkRun;
  oneRequestCsv: BulkRun;
  hundredRequestsOf1000: BulkRun;
  /** One 100,000-code request (JSON) over 100 requests of 1,000: below 1 = faster. */
  oneOverHundredRatio: number;
}

export async function measureAccessCodes(instance: Instance): Promise<AccessCodeFigures> {
  const site = createSite(instance);
  const headers = { 'content-type': 'application/json', 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
  const sku = 'bench-pass';
  const created = await fetch(`${instance.url}/entitlement/v1/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ sku, name: 'Bench pass', prices: [{ currency: 'USD', value: 10 }] }),
  });
  if (created.status !== 201) throw new Error(`entitlement not created: ${created.status} ${await created.text()}`);
  const seen = new Set<string>();

  async function bulk(qty: number, kind: 'json' | 'csv'): Promise<string[]> {
    const response = await fetch(`${instance.url}/accesscode/v1/bulk?kind=${kind}`, { method: 'POST', headers, body: JSON.stringify({ qty, sku }) });
    if (response.status !== 200) throw new Error(`bulk request failed: ${response.status} ${await response.text()}`);
    if (kind === 'json') return ((await response.json()) as { accessCode: string }[]).map((code) => code.accessCode);
    const [, ...lines] = (await response.text()).trimEnd().split('\n');
    return lines.map((line) => line.split(',')[1]);
  }

  async function run(qty: number, requests: number, kind: 'json' | 'csv'): Promise<BulkRun> {
    const before = seen.size;
    const started = process.hrtime.bigint();
    for (let request = 0; request < requests; request += 1) for (const code of await bulk(qty, kind)) seen.add(code);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return { codes: qty * requests, requests, ms: Math.round(ms), unique: seen.size - before === qty * requests };
  }

  // A warm-up request, so the first measured one pays no start-up cost.
  await bulk(100, 'json');
  const oneRequestJson = await run(100_000, 1, 'json');
  const oneRequestCsv = await run(100_000, 1, 'csv');
  const hundredRequestsOf1000 = await run(1_000, 100, 'json');
  return {
    oneRequestJson,
    oneRequestCsv,
    hundredRequestsOf1000,
    oneOverHundredRatio: Math.round((oneRequestJson.ms / hundredRequestsOf1000.ms) * 100) / 100,
  };
}
