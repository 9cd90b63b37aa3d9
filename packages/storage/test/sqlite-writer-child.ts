// A writer process for the SIGKILL durability test: writes without pause and reports each
// acknowledged write on stdout ("ack <kind> <name> <n> <rv>") only after its promise resolved.
import { SqliteStorage } from '../src/index.js';

const dataDir = process.argv[2];
const s = new SqliteStorage({ dataDir, compactIntervalMs: 0 });
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function main(): Promise<void> {
  const counterKey = '/certificates.plat.io/clustertrustbundles/counter';
  await s.create(counterKey, { metadata: { name: 'counter' }, spec: { n: 0 } });
  out('ready');
  for (let i = 1; i < 1_000_000; i++) {
    const created = await s.create(`/certificates.plat.io/clustertrustbundles/obj-${i}`, { metadata: { name: `obj-${i}` }, spec: { i } });
    out(`ack create obj-${i} ${i} ${created.metadata?.resourceVersion}`);
    const updated = await s.guaranteedUpdate(counterKey, (c) => ({ ...c, spec: { n: i } }));
    out(`ack update counter ${i} ${updated.metadata?.resourceVersion}`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
