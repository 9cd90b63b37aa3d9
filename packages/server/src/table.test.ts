import { ageCell, humanDuration } from './table.js';

describe('humanDuration (Kubernetes duration.HumanDuration)', () => {
  it.each([
    [-5000, '<invalid>'],
    [-500, '0s'],
    [0, '0s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [125_000, '2m5s'],
    [600_000, '10m'],
    [179 * 60_000, '179m'],
    [3 * 3_600_000, '3h'],
    [3 * 3_600_000 + 5 * 60_000, '3h5m'],
    [10 * 3_600_000, '10h'],
    [3 * 86_400_000, '3d'],
    [3 * 86_400_000 + 4 * 3_600_000, '3d4h'],
    [30 * 86_400_000, '30d'],
    [3 * 365 * 86_400_000, '3y'],
    [(3 * 365 + 10) * 86_400_000, '3y10d'],
    [9 * 365 * 86_400_000, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it('reads the creationTimestamp for AGE', () => {
    expect(ageCell({ metadata: { creationTimestamp: '2026-01-01T00:00:00Z' } }, Date.parse('2026-01-01T00:05:00Z'))).toBe('5m');
    expect(ageCell({ metadata: {} })).toBe('<unknown>');
  });
});
