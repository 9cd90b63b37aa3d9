import path from 'node:path';
import { findCycles, importsOf, runtimeGraph, workspaceProjects, workspaceRoot } from './import-graph.js';

// A rule of the import graph that lint does not check cheaply (eslint's import/no-cycle is slow):
// no run-time import cycle between the files of a project (a cycle means two files are one idea,
// or a shared piece should move down); type-only imports are erased and do not count.
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
});
