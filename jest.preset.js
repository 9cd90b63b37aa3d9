// Shared jest settings: TypeScript sources run as native ESM through @swc/jest,
// and workspace imports (@plat/x) resolve to the sibling package's src/index.ts.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(fileURLToPath(import.meta.url));

/** @param {string} projectRoot @param {string} displayName */
export function jestConfig(projectRoot, displayName) {
  return {
    displayName,
    rootDir: projectRoot,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
          module: { type: 'es6' },
          sourceMaps: 'inline',
        },
      ],
    },
    moduleNameMapper: {
      '^@plat/([a-z0-9-]+)$': `${root}/packages/$1/src/index.ts`,
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testTimeout: 30000,
    passWithNoTests: true,
  };
}
