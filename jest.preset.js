// Shared jest settings: TypeScript sources run as native ESM through esbuild (tools/jest),
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
      '^.+\\.ts$': `${root}/tools/jest/esbuild-transformer.cjs`,
    },
    moduleNameMapper: {
      '^@plat/([a-z0-9-]+)/(json|testing|yaml)$': `${root}/packages/$1/src/$2.ts`,
      '^@plat/([a-z0-9-]+)$': `${root}/packages/$1/src/index.ts`,
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testTimeout: 30000,
    passWithNoTests: true,
  };
}
