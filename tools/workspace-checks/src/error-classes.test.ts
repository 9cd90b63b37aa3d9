import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { workspaceProjects, workspaceRoot } from './import-graph.js';

// The error convention of docs/architecture.md ("Errors"), checked on the source: every error class
// a library exports has `name` set to its class name (so logs and `util.inspect` say what failed)
// and a `code` callers can branch on, its own or its base class's.
interface ErrorClass {
  file: string;
  name: string;
  base: string;
  setsName: boolean;
  hasCode: boolean;
}

function errorClasses(file: string, text = fs.readFileSync(file, 'utf8')): ErrorClass[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: ErrorClass[] = [];
  for (const node of source.statements) {
    if (!ts.isClassDeclaration(node) || !node.name) continue;
    if (!node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const base = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression.getText(source);
    if (!base) continue;
    const name = node.name.text;
    const body = node.getText(source);
    const setsName =
      body.includes(`this.name = '${name}'`) ||
      node.members.some((m) => ts.isPropertyDeclaration(m) && m.name.getText(source) === 'name' && m.initializer?.getText(source) === `'${name}'`);
    const isCode = (n: ts.Node | undefined) => n !== undefined && n.getText(source) === 'code';
    const hasCode =
      node.members.some((m) => (ts.isPropertyDeclaration(m) || ts.isGetAccessorDeclaration(m)) && isCode(m.name)) ||
      node.members.some((m) => ts.isConstructorDeclaration(m) && m.parameters.some((p) => p.modifiers?.length && isCode(p.name)));
    out.push({ file, name, base, setsName, hasCode });
  }
  return out;
}

describe('error classes', () => {
  it('reads name and code from a class, its constructor parameters or neither', () => {
    const found = errorClasses(
      'x.ts',
      [
        "export class A extends Error { readonly code = 'ERR_A'; constructor(m: string) { super(m); this.name = 'A'; } }",
        "export class B extends A { constructor(m: string, readonly code: string) { super(m); this.name = 'B'; } }",
        'export class C extends Error {}',
        'class D extends Error {}',
        'export class E {}',
      ].join('\n'),
    );
    expect(found.map(({ name, setsName, hasCode }) => ({ name, setsName, hasCode }))).toEqual([
      { name: 'A', setsName: true, hasCode: true },
      { name: 'B', setsName: true, hasCode: true },
      { name: 'C', setsName: false, hasCode: false },
    ]);
  });

  // What a package's index exports is its API; module-level exports inside a package (a parser's
  // private failure) are not.
  const libraries = workspaceProjects().filter((p) => p.dir.startsWith('packages/'));
  it.each(libraries.map((p) => [p.dir, p] as const))('%s: every exported error class sets its name and has a code', async (dir, project) => {
    const api = (await import(`@plat/${path.basename(dir)}`)) as Record<string, unknown>;
    const exported = Object.entries(api).filter(
      (e): e is [string, new (...args: never[]) => Error] => typeof e[1] === 'function' && e[1].prototype instanceof Error,
    );
    const classes = new Map(
      project.files
        .filter((f) => f.includes(`${path.sep}src${path.sep}`) && f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .flatMap((f) => errorClasses(f))
        .map((c) => [c.name, c]),
    );
    const codeOf = (c: ErrorClass | undefined): boolean => c !== undefined && (c.hasCode || codeOf(classes.get(c.base)));
    const wrong = exported.flatMap(([name]) => {
      const c = classes.get(name);
      if (!c) return [`${name}: no exported class declaration of that name in src/`];
      return c.setsName && codeOf(c) ? [] : [`${path.relative(workspaceRoot, c.file)}: ${name}${c.setsName ? '' : ' does not set name'}${codeOf(c) ? '' : ' has no code'}`];
    });
    expect(wrong).toEqual([]);
  });
});
