import { jestConfig } from '../../jest.preset.js';

// Building both executables copies node twice and injects a blob: about a minute on a loaded
// machine, so the target is `test-sea`, outside `npm test` (npx nx run sea:test-sea).
export default { ...jestConfig(import.meta.dirname, 'sea'), testTimeout: 240000 };
