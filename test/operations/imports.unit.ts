/**
 * Imports run one way (STYLE rules 11 and 13), checked by the machine: the project's own TypeScript files
 * (tests and generated files aside) hold no import cycle, type-only imports included, and nothing under
 * subgraphs/ imports the gateway. The graph is read with TypeScript's own pre-processor, so every
 * `import`, `export … from` and `import()` counts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..');
const SOURCE_FOLDERS = ['bench', 'embed', 'gateway', 'provider', 'rest-bridge', 'scripts', 'shared', 'subgraphs'];
const ROOT_FILES = ['main.ts', 'stack.ts', 'prisma.config.ts'];

function sourceFiles(folder: string): string[] {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'generated' || name === 'build') return [];
    if (statSync(path).isDirectory()) return sourceFiles(relative(root, path));
    return name.endsWith('.ts') && !name.endsWith('.generated.ts') && !name.endsWith('.d.ts') ? [relative(root, path)] : [];
  });
}

/** The project file an import names, or null for a package (or a generated file). */
function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return relative(root, candidate);
  return null;
}

const files = [...ROOT_FILES.filter((file) => existsSync(join(root, file))), ...SOURCE_FOLDERS.flatMap(sourceFiles)];
const graph = new Map<string, string[]>(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => resolveImport(file, imported.fileName))
      .filter((target): target is string => target !== null && !target.endsWith('.generated.ts'));
    return [file, [...new Set(targets)]];
  }),
);

/** Every cycle, each once, as the files around it (Tarjan's strongly connected components of size > 1, and self-imports). */
function cycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

it('reads the whole house', () => {
  expect(files.length).toBeGreaterThan(200);
  expect(graph.get('stack.ts')).toEqual(expect.arrayContaining(['gateway/server.ts']));
});

it('holds no import cycle', () => {
  expect(cycles()).toEqual([]);
});

it('keeps the subgraphs from importing the gateway', () => {
  const intoGateway = [...graph].flatMap(([file, targets]) =>
    file.startsWith('subgraphs/') ? targets.filter((target) => target.startsWith('gateway/')).map((target) => `${file} -> ${target}`) : [],
  );
  expect(intoGateway).toEqual([]);
});
