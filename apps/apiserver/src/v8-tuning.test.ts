import { spawnSync } from 'node:child_process';
import { applyServingV8Flags, servingV8Flags } from './v8-tuning.js';

describe('applyServingV8Flags', () => {
  it('turns allocation-site pretenuring off', () => {
    const set: string[] = [];
    expect(applyServingV8Flags([], (f) => set.push(f))).toEqual(['--no-allocation-site-pretenuring']);
    expect(set).toEqual([...servingV8Flags]);
  });

  it.each([['--allocation-site-pretenuring'], ['--no-allocation-site-pretenuring'], ['--allocation_site_pretenuring'], ['--no-allocation_site_pretenuring']])(
    'keeps the operator’s explicit %s',
    (flag) => {
      const set: string[] = [];
      expect(applyServingV8Flags(['--max-old-space-size=512', flag], (f) => set.push(f))).toEqual([]);
      expect(set).toEqual([]);
    },
  );

  it('gives V8 a flag it knows (an unknown one would print an error and be ignored)', () => {
    // V8 reports unknown flags on stderr; run the real call in a fresh process to see it.
    const script = `require('node:v8').setFlagsFromString(${JSON.stringify(servingV8Flags[0])});`;
    const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(res.status).toBe(0);
    expect(res.stderr).toBe('');
    const bogus = spawnSync(process.execPath, ['-e', `require('node:v8').setFlagsFromString('--no-such-flag-plat')`], { encoding: 'utf8' });
    expect(bogus.stderr).toMatch(/unrecognized flag|Error: unrecognized/i);
  });
});
