import path from 'node:path';

// Every package must declare what its sources import, so it installs and works on its own
// (`node tools/workspace-deps/workspace-deps.mjs --fix` adds what is missing).
describe('declared dependencies', () => {
  const script = path.resolve(import.meta.dirname, '../../workspace-deps/workspace-deps.mjs');

  it('every import of a package source is declared in its package.json', async () => {
    const { missingDependencies } = (await import(script)) as {
      missingDependencies: () => { file: string; missing: string[] }[];
    };
    expect(missingDependencies().map(({ file, missing }) => `${path.basename(path.dirname(file))}: ${missing.join(', ')}`)).toEqual([]);
  });

  it('every runtime dependency is imported by a non-test source', async () => {
    const { unusedDependencies } = (await import(script)) as {
      unusedDependencies: () => { file: string; unused: string[] }[];
    };
    expect(unusedDependencies().map(({ file, unused }) => `${path.basename(path.dirname(file))}: ${unused.join(', ')}`)).toEqual([]);
  });
});
