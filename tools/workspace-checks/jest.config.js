import { jestConfig } from '../../jest.preset.js';

export default { ...jestConfig(import.meta.dirname, 'workspace-checks'), testTimeout: 120000 };
