import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { ConfigReloader, Reloadable } from './config-reloader.js';

describe('config reloader', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reload-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('applies a changed valid file, keeps the previous config on an invalid one, and records metrics', async () => {
    const file = path.join(dir, 'authz.json');
    fs.writeFileSync(file, '{"v":1}');
    const current = new Reloadable<number>(1);
    const registry = new Registry();
    const events: boolean[] = [];
    const reloader = new ConfigReloader<number>({
      path: file,
      kind: 'authorization',
      initialText: '{"v":1}',
      registry,
      load: async (text) => {
        const v = (JSON.parse(text) as { v?: unknown }).v;
        if (typeof v !== 'number') throw new Error('v: Required value');
        return v;
      },
      apply: (v) => void current.swap(v),
      onReload: (e) => events.push(e.ok),
    });
    await reloader.check();
    expect(events).toEqual([]); // unchanged file: nothing to do
    fs.writeFileSync(file, '{"v":2}');
    await reloader.check();
    expect(current.current).toBe(2);
    fs.writeFileSync(file, '{"x":3}');
    await reloader.check();
    expect(current.current).toBe(2);
    fs.writeFileSync(file, '{"v":4}');
    await reloader.check();
    expect(current.current).toBe(4);
    expect(events).toEqual([true, false, true]);
    const text = await registry.metrics();
    expect(text).toMatch(/apiserver_authorization_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="[0-9a-f]+"\} 2/);
    expect(text).toMatch(/apiserver_authorization_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash="[0-9a-f]+"\} 1/);
    expect(text).toContain('apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds');
  });

  it('polls the file on its own once started', async () => {
    const file = path.join(dir, 'authn.json');
    fs.writeFileSync(file, '1');
    let applied = 0;
    const reloader = new ConfigReloader<number>({ path: file, kind: 'authentication', initialText: '1', intervalMs: 20, load: async (t) => Number(t), apply: (v) => void (applied = v) });
    reloader.start();
    fs.writeFileSync(file, '7');
    const deadline = Date.now() + 15_000;
    while (applied !== 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    reloader.stop();
    expect(applied).toBe(7);
  });
});
