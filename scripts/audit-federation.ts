/**
 * `npm run audit:federation -- --audit DIR [--suite ID]`: the Guild's federation-gateway-audit
 * (github.com/graphql-hive/federation-gateway-audit) run against stagegraph's gateway machinery over each of the
 * audit's supergraphs (`npm run gateway`, gateway/anySupergraph.ts) and against plain @apollo/gateway (the
 * audit's own adapter) at the same audit commit, printed side by side per suite. It fails when stagegraph
 * fails a test plain @apollo/gateway passes. DIR is a checkout of the audit with its packages installed; it is
 * a development tool, kept out of this project's lockfile (docs/contributing.md says how to fetch and install it).
 * Both gateways take port 4000 in turn and the audit's subgraphs 4200, as the audit expects.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(__dirname, '..');
const GATEWAYS = ['apollo-gateway', 'stagegraph'] as const;

const HOW_TO_GET_IT = `--audit DIR is required: a checkout of the Guild's federation-gateway-audit with its packages installed.
  Get it: git clone https://github.com/graphql-hive/federation-gateway-audit DIR (or a copy of it), then in DIR
  drop the devDependencies only other gateways' adapters use (wgc, @graphql-hive/gateway, @graphql-hive/router-runtime,
  @changesets/*, pkgroll), delete package-lock.json and run npm install (docs/contributing.md, "The federation audit").`;

/** The adapter the audit runs for stagegraph: the suite's supergraph fetched, then `npm run gateway` over it on port 4000. */
function writeAdapter(audit: string): void {
  const folder = join(audit, 'gateways', 'stagegraph');
  mkdirSync(folder, { recursive: true });
  const node = join(root, 'node_modules', '.bin', 'node');
  writeFileSync(
    join(folder, 'run.sh'),
    `# Written by stagegraph's scripts/audit-federation.ts: the suite's supergraph, then stagegraph's gateway over it.
npm start supergraph -- --cwd ./gateways/stagegraph --test $1
exec "${existsSync(node) ? node : process.execPath}" --import tsx "${join(root, 'scripts', 'gateway.ts')}" --supergraph supergraph.graphql --port 4000 --host 127.0.0.1
`,
  );
  writeFileSync(
    join(folder, 'gateway.json'),
    `${JSON.stringify({ name: 'stagegraph', repository: 'stagegraph', graphql: 'http://127.0.0.1:4000/graphql', health: 'http://127.0.0.1:4000/health' }, null, 2)}\n`,
  );
}

/** Each suite's marks (`.` passed, `X` failed) as the audit's dot reporter prints them. */
async function runAudit(audit: string, gateway: string, suite: string | undefined): Promise<Map<string, string>> {
  const args = suite ? ['start', '--', 'test-suite', '--test', suite, '--reporter', 'dot'] : ['start', '--', 'test', '--reporter', 'dot'];
  args.push(
    '--cwd',
    `./gateways/${gateway}`,
    '--run-script',
    './run.sh',
    '--graphql',
    'http://127.0.0.1:4000/graphql',
    '--healthcheck',
    'http://127.0.0.1:4000/health',
  );
  const child = spawn('npm', args, {
    cwd: audit,
    // The audit needs Node 24 (Promise.withResolvers): this project's runtime first on PATH.
    env: {
      ...process.env,
      PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      GATEWAY_TIMEOUT: process.env.GATEWAY_TIMEOUT ?? '60000',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((done) => child.once('close', done));
  const lines = output.split('\n').map((line) => line.trim());
  const marks = new Map<string, string>();
  lines.forEach((line, index) => {
    const next = lines[index + 1] ?? '';
    if (/^[a-z0-9-]+$/.test(line) && /^[.X]+$/.test(next)) marks.set(line, next);
  });
  if (marks.size === 0) throw new Error(`the audit printed no suite for ${gateway}; its output:\n${output.slice(-3000)}`);
  return marks;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { audit: { type: 'string' }, suite: { type: 'string' } } });
  if (!values.audit) throw new Error(HOW_TO_GET_IT);
  const audit = resolve(values.audit);
  const manifest = join(audit, 'package.json');
  if (!existsSync(manifest) || !readFileSync(manifest, 'utf8').includes('federation-gateway-audit'))
    throw new Error(`${audit} is not a checkout of the audit.\n${HOW_TO_GET_IT}`);
  if (!existsSync(join(audit, 'node_modules', '@apollo', 'gateway'))) throw new Error(`${audit} has no packages installed.\n${HOW_TO_GET_IT}`);
  writeAdapter(audit);
  const results = new Map<string, Map<string, string>>();
  for (const gateway of GATEWAYS) {
    process.stderr.write(`running the audit against ${gateway}…\n`);
    results.set(gateway, await runAudit(audit, gateway, values.suite));
  }
  const apollo = results.get('apollo-gateway')!;
  const ours = results.get('stagegraph')!;
  const suites = [...new Set([...apollo.keys(), ...ours.keys()])].sort();
  const count = (marks = '') => ({ passed: [...marks].filter((mark) => mark === '.').length, total: marks.length });
  const behind: string[] = [];
  const rows = suites.map((suite) => {
    const [a, s] = [apollo.get(suite), ours.get(suite)];
    const worse = [...(a ?? '')].some((mark, index) => mark === '.' && s?.[index] !== '.');
    if (worse) behind.push(suite);
    const cell = (marks: string | undefined) => `${count(marks).passed}/${count(marks).total}`;
    return `| ${suite} | ${cell(a)} | ${cell(s)} |${worse ? ' behind' : ''}`;
  });
  const total = (all: Map<string, string>) => [...all.values()].reduce((sum, marks) => sum + count(marks).passed, 0);
  const tests = (all: Map<string, string>) => [...all.values()].reduce((sum, marks) => sum + count(marks).total, 0);
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? '?';
  process.stdout.write(
    [
      `federation-gateway-audit ${version} (${dirname(manifest)}): ${suites.length} suites`,
      '',
      "| suite | @apollo/gateway (the audit's adapter) | stagegraph |",
      '|---|---|---|',
      ...rows,
      `| all | ${total(apollo)}/${tests(apollo)} | ${total(ours)}/${tests(ours)} |`,
      '',
      behind.length ? `stagegraph fails tests @apollo/gateway passes in: ${behind.join(', ')}` : 'stagegraph passes every test @apollo/gateway passes.',
      '',
    ].join('\n'),
  );
  if (behind.length) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
