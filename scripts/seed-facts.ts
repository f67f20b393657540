/**
 * `npx tsx scripts/seed-facts.ts SEEDS_DIR [OUT]`: the seeds' route and auth facts, read once from the two seed
 * documents (plain Markdown tables of the partner and platform APIs) into test/contract/seed-facts.json, which the
 * tests read: the repository carries the contract as data and needs nothing beside it to test against it.
 *
 * Every endpoint row whose path is shown becomes one fact {seed, section, method, path, auth}. Where a seed shows a
 * path but not its method, the method is the one docs/design.md chose ("Paths the seeds leave “not shown”").
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** An Auth code of the seeds: C site ID, D developer key, J JWT, S super key. */
export type SeedAuthCode = 'C' | 'D' | 'J' | 'S';

/** What a seed row asks of a caller: alternatives of Auth codes, or a partner's own credential. */
export type SeedAuth = { codes: SeedAuthCode[][] } | { partner: 'bearer' | 'signature' };

/** One endpoint row of a seed document. */
export interface SeedRow {
  /** The seed document's number: `000` (integration contracts) or `001` (the platform content API). */
  seed: string;
  section: string;
  method: string;
  path: string;
  auth: SeedAuth;
}

const splitRow = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/** Auth codes named in a phrase such as "C plus D, or J as in the sports workflow" or "C, D on all". */
function codesOf(phrase: string): SeedAuthCode[][] {
  const text = phrase
    .replace(/\(sample also sends [A-Z]\)/g, '')
    .replace(/;.*$/, '')
    .replace(/,?\s*except .*$/, '');
  return text.split(/,\s*or\s+/).map((alternative) => [...new Set(alternative.match(/\b[CDJ]\b/g) ?? [])] as SeedAuthCode[]);
}

/** The Auth cell of a row, read as the seeds write it. */
function authOfCell(cell: string): SeedAuth {
  if (/Bearer <AUTHORIZATION>/.test(cell)) return { partner: 'bearer' };
  if (/X-DataProvider-Signature/i.test(cell)) return { partner: 'signature' };
  if (/super-api-key/.test(cell)) return { codes: [['S']] };
  if (/x-service-client-id/.test(cell)) return { codes: [['C']] };
  // "see Authentication": registration of a partner, which docs/design.md gives to C + D.
  if (/see Authentication/.test(cell)) return { codes: [['C', 'D']] };
  return { codes: codesOf(cell) };
}

/** A path compared as the route table's: parameters unnamed, no trailing slash, lower case. */
export const normalizeSeedPath = (path: string) =>
  path
    .replace(/^\{base_url\}/, '')
    .replace(/\{[^}]+\}/g, '{}')
    .replace(/\/$/, '')
    .toLowerCase() || '/';

/** The design's table of paths the seeds leave "not shown": the methods chosen for a seed path. */
function chosenMethods(design: string): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const match of design.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s·|]+)/g)) {
    const key = normalizeSeedPath(match[2]);
    methods.set(key, [...new Set([...(methods.get(key) ?? []), match[1]])]);
  }
  return methods;
}

/** Every endpoint row of the seed documents in `seedsDir` whose path is shown, methods chosen by `design`. */
export function readSeedRows(seedsDir: string, design: string): SeedRow[] {
  const chosen = chosenMethods(design);
  const rows: SeedRow[] = [];
  for (const file of readdirSync(seedsDir)
    .filter((name) => /\.(txt|md)$/.test(name))
    .sort()) {
    let section = '';
    let columns: string[] = [];
    for (const line of readFileSync(join(seedsDir, file), 'utf8').split('\n')) {
      if (line.startsWith('#')) {
        section = line.replace(/^#+\s*/, '');
        columns = [];
        continue;
      }
      if (!line.startsWith('|')) {
        if (line.trim() === '') continue;
        columns = [];
        continue;
      }
      const cells = splitRow(line);
      if (columns.length === 0) {
        columns = cells.map((cell) => cell.toLowerCase());
        continue;
      }
      if (cells.every((cell) => /^-+$/.test(cell))) continue;
      const at = (name: string) => cells[columns.indexOf(name)] ?? '';
      if (!columns.includes('method') || !columns.includes('path')) continue;
      const rawPath = at('path');
      // Ours where the seed shows no path: docs/design.md's table names it, the route tests cover it.
      if (/not shown/.test(rawPath) || /path: not shown|and path/.test(at('method'))) continue;
      // A section heading such as "Panels (C, D)" gives the Auth of its rows; a row may narrow it.
      const heading = /\(([^)]*\b[CDJ]\b[^)]*)\)/.exec(section)?.[1];
      const input = at('input');
      for (const path of rawPath.split(/\s+and\s+/).map((part) => part.replace(/^\{base_url\}/, ''))) {
        let auth: SeedAuth;
        if (columns.includes('auth')) auth = authOfCell(at('auth'));
        // A row of a table without an Auth column may narrow its section's: "C", "C only; …", "…; D optional".
        else if (input === 'C' || /^C only\b/.test(input) || /\bD optional\b/.test(input)) auth = { codes: [['C']] };
        else if (heading && /except GET by id which needs only C/.test(heading) && at('method') === 'GET' && /^\/[^/]+\/[^/]+\/\{id\}$/.test(path))
          auth = { codes: [['C']] };
        else auth = { codes: codesOf(heading ?? '') };
        // "permissions as noted in Resources": reading needs a permission too, which only D or a J's role carries.
        if (heading && /permissions/.test(heading) && 'codes' in auth)
          auth = {
            codes: auth.codes.flatMap(
              (codes) =>
                [
                  [...codes, 'D'],
                  [...codes, 'J'],
                ] as SeedAuthCode[][],
            ),
          };
        const method = at('method');
        const methods = /not shown/.test(method) ? (chosen.get(normalizeSeedPath(path)) ?? ['(none chosen)']) : [method];
        // "The reference lists the page read paths under both the page/v2 and pages/v2 forms."
        const forms =
          /^Pages and channels/.test(section) && method === 'GET' && path.startsWith('/page/v2/') ? [path, path.replace('/page/v2/', '/pages/v2/')] : [path];
        for (const form of forms) for (const each of methods) rows.push({ seed: file.slice(0, 3), section, method: each, path: form, auth });
      }
    }
  }
  return rows;
}

/** Where the facts live in the repository. */
export const SEED_FACTS_FILE = join(__dirname, '..', 'test', 'contract', 'seed-facts.json');

/** The facts as the file holds them: one row a line, so a change to the seeds reads as a short diff. */
export const seedFactsText = (rows: SeedRow[]) => `[\n${rows.map((row) => `  ${JSON.stringify(row)}`).join(',\n')}\n]\n`;

if (require.main === module) {
  // `--check SEEDS_DIR`: exit 1 when the facts file is not what the seeds say today (nothing is written).
  const check = process.argv[2] === '--check';
  const [seedsDir, out = SEED_FACTS_FILE] = process.argv.slice(check ? 3 : 2);
  if (!seedsDir) {
    console.error('usage: npx tsx scripts/seed-facts.ts [--check] SEEDS_DIR [OUT]');
    process.exit(2);
  }
  const rows = readSeedRows(seedsDir, readFileSync(join(__dirname, '..', 'docs', 'design.md'), 'utf8'));
  const text = seedFactsText(rows);
  if (check) {
    const same = readFileSync(out, 'utf8') === text;
    console.log(same ? `${out} is what ${seedsDir} says` : `${out} differs from ${seedsDir}: run npx tsx scripts/seed-facts.ts ${seedsDir}`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(out, text);
  console.log(`${rows.length} seed rows -> ${out}`);
}
