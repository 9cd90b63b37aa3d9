import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigFileError, loadEgressConfigFile, loadTracingConfigFile } from './config-file.js';
import type { Logger } from './logger.js';

const logs: string[] = [];
const logger: Logger = {
  info: (m, f) => logs.push(`I ${m} ${JSON.stringify(f ?? {})}`),
  error: (m, f) => logs.push(`E ${m} ${JSON.stringify(f ?? {})}`),
  enabled: () => true,
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plat-config-file-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeFile(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

function egressFile(name: string, selection: string, url: string): string {
  return writeFile(
    name,
    `apiVersion: apiserver.plat.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: ${selection}
  connection:
    proxyProtocol: HTTPConnect
    transport:
      tcp:
        url: ${url}
`,
  );
}

describe('configuration files', () => {
  it('loads a valid tracing file and reports every field error of an invalid one', async () => {
    const good = writeFile('tracing.yaml', 'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:4317\nsamplingRatePerMillion: 100\n');
    expect(await loadTracingConfigFile(good, dir, logger)).toMatchObject({ endpoint: '127.0.0.1:4317', samplingRatePerMillion: 100 });
    const bad = writeFile(
      'tracing-bad.yaml',
      'apiVersion: apiserver.plat.io/v1beta1\nkind: TracingConfiguration\nendpoint: "http://x:1"\nsamplingRatePerMillion: 2000000\n',
    );
    const err = await loadTracingConfigFile(bad, dir, logger).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigFileError);
    const lines = (err as Error).message.split('\n');
    expect(lines[0]).toBe(`--tracing-config-file: invalid configuration in ${bad}:`);
    expect(lines.slice(1)).toEqual([
      '  samplingRatePerMillion: Invalid value: 2000000: sampling rate per million must be less than or equal to one million',
      expect.stringMatching(/^ {2}endpoint: Invalid value: "http:\/\/x:1": unsupported scheme: http/),
    ]);
    // An empty tracing file is valid (all defaults).
    expect(await loadTracingConfigFile(writeFile('empty.yaml', ''), dir, logger)).toEqual({});
  });

  it('reports egress field errors, a missing file, and the master deprecation warning', async () => {
    const bad = writeFile(
      'egress-bad.yaml',
      'apiVersion: apiserver.plat.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: nowhere\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: ftp://x:1\n',
    );
    const err = (await loadEgressConfigFile(bad, dir, logger).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ConfigFileError);
    expect(err.message).toContain('egressSelections[0].name: Unsupported value: "nowhere"');
    expect(err.message).toContain('egressSelections[0].connection.transport.tcp.url: Invalid value: "ftp://x:1": supported connection protocols are http:// and https://');
    await expect(loadEgressConfigFile('missing.yaml', dir, logger)).rejects.toThrow('--egress-selector-config-file: open missing.yaml: no such file or directory');
    logs.length = 0;
    const master = egressFile('master.yaml', 'master', 'http://127.0.0.1:3128');
    const config = await loadEgressConfigFile(master, dir, logger);
    expect(config.egressSelections[0]!.name).toBe('controlplane');
    expect(logs.some((l) => l.includes('"master" is deprecated'))).toBe(true);
  });
});
