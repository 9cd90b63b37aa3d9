import path from 'node:path';

// Every package README installs, shows its example programs as they are in examples/ (run by
// tools/consumer-check), says what it pairs with and lists its API
// (`node tools/readme-examples/readme-examples.mjs --write` copies the examples in).
const script = path.resolve(import.meta.dirname, '../../readme-examples/readme-examples.mjs');
const { packageReadmes, readmeProblems } = (await import(script)) as {
  packageReadmes: () => { name: string }[];
  readmeProblems: (p: { name: string }) => string[];
};

describe('package READMEs', () => {
  it.each(packageReadmes().map((p) => [p.name, p] as const))('%s: install line, examples equal to their files, pairs with, API', (_name, p) => {
    expect(readmeProblems(p)).toEqual([]);
  });
});
