import { jestConfig } from '../../jest.preset.js';

export default jestConfig(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'registry');
