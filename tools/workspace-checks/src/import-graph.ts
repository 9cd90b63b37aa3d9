import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The workspace's TypeScript import graph, read with the TypeScript parser: which files each
// source imports by relative path (static imports, re-exports and `import()` calls).

export const workspaceRoot = path.resolve(import.meta.dirname, '../../..');

export interface Project {
  /** e.g. `packages/server`, relative to the workspace root. */
  dir: string;
  /** Absolute paths of its TypeScript and JavaScript files (sources, tests, fixtures, examples). */
  files: string[];
}

export interface Import {
  specifier: string;
  /** `import type` / `export type`: erased at run time, so it cannot make a run-time cycle. */
  typeOnly: boolean;
  line: number;
}

function walk(dir: string, into: string[]): string[] {
  if (!fs.existsSync(dir)) return into;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist' && !e.name.startsWith('.')) walk(full, into);
    } else if (/\.(m?ts|m?js)$/.test(e.name) && !/\.d\.m?ts$/.test(e.name)) into.push(full);
  }
  return into;
}

/** Every package and app with its TypeScript and JavaScript files. */
export function workspaceProjects(root = workspaceRoot): Project[] {
  return ['packages', 'apps'].flatMap((group) =>
    fs
      .readdirSync(path.join(root, group))
      .filter((d) => fs.existsSync(path.join(root, group, d, 'package.json')))
      .sort()
      .map((d) => ({ dir: `${group}/${d}`, files: walk(path.join(root, group, d), []).sort() })),
  );
}

const parsed = new Map<string, Import[]>();

/** The imports of a file (parsed once per file and process), or of `text` as if it were that file. */
export function importsOf(file: string, text?: string): Import[] {
  if (text === undefined) {
    let known = parsed.get(file);
    if (!known) parsed.set(file, (known = importsOf(file, fs.readFileSync(file, 'utf8'))));
    return known;
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Import[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (specifier && ts.isStringLiteralLike(specifier)) {
      out.push({ specifier: specifier.text, typeOnly, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, node.importClause?.isTypeOnly ?? false);
    else if (ts.isExportDeclaration(node)) add(node, node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0], false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in source), or undefined. */
export function resolveRelative(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(from), specifier);
  for (const candidate of [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** File → files it imports at run time (type-only imports left out). */
export function runtimeGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file)
      .filter((i) => !i.typeOnly)
      .flatMap((i) => resolveRelative(file, i.specifier) ?? []);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components with more than one file, or one that imports itself (Tarjan). */
export function findCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return cycles;
}
