import { ageCell } from './table.js';

describe('ageCell', () => {
  it('reads the creationTimestamp for AGE', () => {
    expect(ageCell({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z' } }, Date.parse('2026-01-01T00:05:00Z'))).toBe('5m');
    expect(ageCell({ metadata: {} })).toBe('<unknown>');
  });
});
