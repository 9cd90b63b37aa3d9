import { jestConfig } from '../../jest.preset.js';

const base = jestConfig(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'apiserver');

export default {
  ...base,
  // End-to-end tests spawn the bundled binary; build it once per run.
  globalSetup: '<rootDir>/test/global-setup.mjs',
  testTimeout: 60000,
};
