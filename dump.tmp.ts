import { routes } from './rest-bridge/routes';
const want = process.argv.slice(2);
for (const r of routes) {
  if (!want.includes(r.operationId)) continue;
  const s: any = r.body?.schema;
  console.log(r.operationId, r.method, r.path, JSON.stringify(r.auth), 'required=', JSON.stringify(s?.required), 'props=', Object.keys(s?.properties ?? {}).join(','));
}
