import path from 'node:path';
import { findCycles, importsOf, runtimeGraph, workspaceProjects, workspaceRoot } from './import-graph.js';

// Two rules of the import graph that lint does not check cheaply (eslint's import/no-cycle is slow):
// - no run-time import cycle between the files of a project (a cycle means two files are one idea,
//   or a shared piece should move down); type-only imports are erased and do not count;
// - a project reaches another project only through its package name and exports (`@plat/x`,
//   `@plat/x/testing`), never by a relative path into its src/ or test/ folder.
const projects = workspaceProjects();
const relative = (file: string) => path.relative(workspaceRoot, file);

describe('import graph', () => {
  it('finds a cycle through a dynamic import and ignores type-only imports', () => {
    expect(importsOf('a.ts', "import type { B } from './b.js';\nconst c = await import('./c.js');\nexport * from './d.js';\n")).toEqual([
      { specifier: './b.js', typeOnly: true, line: 1 },
      { specifier: './c.js', typeOnly: false, line: 2 },
      { specifier: './d.js', typeOnly: false, line: 3 },
    ]);
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(findCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  it.each(projects.map((p) => [p.dir, p] as const))('%s has no run-time import cycle', (_dir, project) => {
    expect(findCycles(runtimeGraph(project.files)).map((cycle) => cycle.map(relative).join(' <-> '))).toEqual([]);
  });

  const ownerOf = (file: string) => projects.find((p) => file.startsWith(path.join(workspaceRoot, p.dir) + path.sep));

  it.each(projects.map((p) => [p.dir, p] as const))("%s imports no other project's files by relative path", (_dir, project) => {
    const intoOthers = project.files.flatMap((file) =>
      importsOf(file)
        .filter((i) => i.specifier.startsWith('.') && ![project, undefined].includes(ownerOf(path.resolve(path.dirname(file), i.specifier))))
        .map((i) => `${relative(file)}:${i.line} imports ${i.specifier}`),
    );
    expect(intoOthers).toEqual([]);
  });

  it('sees a relative import into another package', () => {
    const file = path.join(workspaceRoot, 'apps/apiserver/src/probe.test.ts');
    const [i] = importsOf(file, "import { startOtlpReceiver } from '../../../packages/telemetry/test/otlp-receiver.js';\n");
    expect(ownerOf(path.resolve(path.dirname(file), i!.specifier))?.dir).toBe('packages/telemetry');
  });
});
