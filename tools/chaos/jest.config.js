import { jestConfig } from '../../jest.preset.js';

export default {
  ...jestConfig(import.meta.dirname, 'chaos'),
  // The run starts the real apiserver binary: built once per jest run, as apps/apiserver's tests do.
  globalSetup: '<rootDir>/src/global-setup.mjs',
  testTimeout: 120_000,
};
