/**
 * The project's documents stand on their own (docs/design.md; the README is the front door, docs/ the rest): the
 * README stays short and maps every document of docs/, every link between them reaches a file of the repository
 * and a heading that exists, and neither a document nor a comment of the code cites a design outside it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');

/** The headings of a Markdown text outside its code blocks. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** The links of a Markdown text outside its code blocks. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

it('the README is the front door: at most 400 lines, and its map lists every document of docs/', () => {
  const readme = read('README.md');
  expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  const mapped = new Set(linksOf(readme).filter((link) => /^docs\/[\w-]+\.md$/.test(link)));
  expect(documents.filter((path) => path.startsWith('docs/') && !mapped.has(path))).toEqual([]);
});

it.each(documents)('%s: every link reaches a file of the repository and a heading that exists', (path) => {
  const broken: string[] = [];
  for (const link of linksOf(read(path))) {
    if (/^[a-z]+:/.test(link)) continue;
    const [target, anchor] = link.split('#');
    const file = target ? relative(root, join(root, dirname(path), target)) : path;
    if (!existsSync(join(root, file)) || file.startsWith('..')) broken.push(`${link}: no file ${file}`);
    else if (anchor && file.endsWith('.md') && !anchorsOf(read(file)).has(anchor)) broken.push(`${link}: no heading #${anchor} in ${file}`);
  }
  expect(broken).toEqual([]);
});

it('no document and no comment of the code cites a design outside the repository', () => {
  for (const path of documents) expect({ path, outside: /\.\.\/shared|DESIGN\.md/.test(read(path)) }).toEqual({ path, outside: false });
  const cited = spawnSync(
    'git',
    ['grep', '-n', '-E', '\\bDESIGN(\\.md)?\\b|\\.\\./shared/(seeds|DESIGN)', '--', '*.ts', '*.graphql', '*.yml', '*.yaml', '*.cfg', '*.js'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  // git grep: 0 found, 1 found nothing; anything else (no repository) would make this check pass unread.
  expect([0, 1]).toContain(cited.status);
  // This file names what it looks for.
  const own = ['test/operations/documents.unit.ts:'];
  const lines = cited.stdout.split('\n').filter((line) => line && !own.some((path) => line.startsWith(path)));
  expect(lines).toEqual([]);
});
