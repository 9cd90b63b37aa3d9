import { jestConfig } from '../../jest.preset.js';

// Packing, laying out and type-checking take a while on a loaded machine: one generous timeout.
export default { ...jestConfig(import.meta.dirname, 'consumer-check'), testTimeout: 120000 };
