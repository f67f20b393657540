/**
 * `npm run build`: dist/ from the sources — `npm run generate` (Prisma clients, supergraph, resolver types,
 * the browser bundles), then tsc's emit and the assets the compiled code reads.
 * `npm start` runs it with `--if-stale`: the build is skipped when dist/ was built from exactly the sources
 * there now. What it was built from is a hash of the build's inputs (the sources' contents, not their
 * times, so a checkout or an `npm test` that regenerates files changes nothing) kept in dist/.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sdkBuildDir, projectRoot } from '../shared/paths';

/** What the build reads (tests, bench and docs are not built). */
const INPUTS = [
  'main.ts',
  'stack.ts',
  'shared',
  'subgraphs',
  'gateway',
  'rest-bridge',
  'scripts',
  'provider',
  'embed',
  'prisma',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'codegen.yml',
];
/** Folders the build writes into the sources' tree (git-ignored): outputs, not inputs. */
const OUTPUT_FOLDERS = new Set(['node_modules', 'build', 'generated', '.derived']);
/** What must be there for dist/main.js to run (besides dist/ itself, the bundles the gateway serves). */
const dist = join(projectRoot, 'dist');
const OUTPUTS = [join(dist, 'main.js'), join(dist, 'shared', 'db', 'generated'), join(sdkBuildDir, 'embed.js'), join(sdkBuildDir, 'player.js')];
const STAMP = join(dist, '.build-inputs.json');

function inputFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return /\.generated\./.test(path) ? [] : [path];
  return readdirSync(path)
    .filter((entry) => !OUTPUT_FOLDERS.has(entry))
    .sort()
    .flatMap((entry) => inputFiles(join(path, entry)));
}

/** A hash of every input's path and contents. */
export function buildInputsHash(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap((input) => inputFiles(join(projectRoot, input)))) {
    hash
      .update(`${relative(projectRoot, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether dist/ holds a complete build of inputs with this hash. */
function builtFrom(hash: string): boolean {
  if (!OUTPUTS.every((output) => existsSync(output))) return false;
  try {
    return (JSON.parse(readFileSync(STAMP, 'utf8')) as { inputs?: string }).inputs === hash;
  } catch {
    return false;
  }
}

/** After tsc: what the compiled code reads next to itself (subgraph SDLs, generated Prisma clients). */
function copyAssets(): void {
  for (const name of readdirSync(join(projectRoot, 'subgraphs'), { withFileTypes: true })) {
    if (name.isDirectory()) cpSync(join(projectRoot, 'subgraphs', name.name, 'schema.graphql'), join(dist, 'subgraphs', name.name, 'schema.graphql'));
  }
  cpSync(join(projectRoot, 'shared', 'db', 'generated'), join(dist, 'shared', 'db', 'generated'), { recursive: true });
  // The composition the build made, served at start when the SDLs beside it are the ones it came from.
  cpSync(join(projectRoot, 'gateway', 'supergraph.generated.graphql'), join(dist, 'gateway', 'supergraph.generated.graphql'));
}

const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: projectRoot, stdio: 'inherit' });

/** Builds dist/ (always, or with `ifStale` only when the inputs changed since the last build); true when it built. */
export function build({ ifStale = false } = {}): boolean {
  // Hashed before building: a source edited during the build makes the next start build again.
  const hash = buildInputsHash();
  if (ifStale && builtFrom(hash)) {
    process.stderr.write('build: dist/ is up to date with the sources; not rebuilding (npm run build forces it)\n');
    return false;
  }
  if (ifStale) process.stderr.write('build: dist/ is missing or older than the sources; building (about 12 s)\n');
  run('npm', ['run', '--silent', 'generate']);
  rmSync(dist, { recursive: true, force: true });
  // Emit only: type checking is `npm run typecheck` (npm test's pretest, CI). Each file compiles alone
  // (isolatedModules), so the output is the same as a checked build's, in under half the time.
  run(process.execPath, [join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--noCheck']);
  copyAssets();
  writeFileSync(STAMP, `${JSON.stringify({ inputs: hash, builtAt: new Date().toISOString() })}\n`);
  return true;
}

if (require.main === module) {
  try {
    build({ ifStale: process.argv.includes('--if-stale') });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
