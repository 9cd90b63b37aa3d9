import path from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import pkg from '../package.json' with { type: 'json' };
import { createLogger } from './logger.js';
import { completeServeOptions, declareServeFlags, describeOptions, type RawFlags } from './options.js';
import { runServer, StartupError, type RunningServer } from './run-server.js';
import { migrateStorageCommand } from './migrate-storage-command.js';
import { snapshotCommand } from './snapshot-command.js';
import { validateCommand } from './validate-command.js';
import { applyServingV8Flags } from './v8-tuning.js';
import { goQuote } from '@plat/api-model';

const version = pkg.version;

/** A path as the user would type it from here: relative below the current folder, else absolute. */
function displayPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? path.resolve(p) : rel;
}

/** What `npm start` shows a newcomer: where the server is and what to run next. */
function banner(running: RunningServer, dataDir: string): string {
  const lines = [`plat apiserver v${version} is serving at ${running.url}`];
  if (running.adminKubeconfig) {
    const conf = displayPath(running.adminKubeconfig);
    const pki = displayPath(running.devPki!.dir);
    lines.push(
      `Development PKI in ${pki} (${running.devPki!.action}); admin credentials (group system:masters) in ${conf}`,
      '',
      'Next, in another terminal, try:',
      `  npx clientctl --kubeconfig ${conf} get clustertrustbundles`,
      `  kubectl --kubeconfig ${conf} get clustertrustbundles`,
    );
  } else {
    lines.push(`Data directory: ${dataDir}. Clients need a kubeconfig trusting the serving certificate.`);
  }
  lines.push('', 'Stop with Ctrl-C (SIGINT) or SIGTERM: the server drains in-flight requests and closes watches.');
  return `${lines.join('\n')}\n`;
}

async function serve(raw: RawFlags): Promise<void> {
  const { options, errors } = completeServeOptions(raw);
  if (!options) {
    for (const e of errors) process.stderr.write(`Error: ${e}\n`);
    process.stderr.write('Run "apiserver --help" for the flags.\n');
    process.exit(1);
  }
  const logger = createLogger({ format: options.loggingFormat, verbosity: options.verbosity });
  for (const [flag, value] of Object.entries(describeOptions(options))) logger.info(`FLAG: --${flag}=${goQuote(value)}`, {}, 1);
  for (const flag of applyServingV8Flags()) logger.info(`V8 flag: ${flag}`, {}, 1);
  let running: RunningServer;
  try {
    running = await runServer(options, { logger, version });
  } catch (err) {
    if (err instanceof StartupError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  process.stdout.write(banner(running, options.dataDir));

  // Ctrl-C in a terminal signals the whole process group, and `npm start`'s wrapper forwards the
  // signal too: a repeat within a second is the same request to stop, a later one means "now".
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== 0) {
      if (Date.now() - firstSignalAt < 1000) return;
      logger.info('Received a second termination signal, exiting without draining', { signal }, 0);
      process.exit(1);
    }
    firstSignalAt = Date.now();
    logger.info('Received termination signal, shutting down gracefully', { signal }, 0);
    running.stop().then(
      () => {
        logger.info('Shut down cleanly', {}, 0);
        process.exit(0);
      },
      (err: unknown) => {
        logger.error('Shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

export async function main(argv: string[]): Promise<void> {
  const cli = yargs(argv)
    .scriptName('apiserver')
    .parserConfiguration({ 'camel-case-expansion': false, 'strip-aliased': true })
    .strictOptions()
    .version('version', 'Print version information and quit', `apiserver v${version}`)
    .help('help')
    .alias('help', 'h')
    .wrap(Math.min(120, process.stdout.columns || 100))
    .fail((msg, err) => {
      if (err) throw err;
      const unknown = /^Unknown arguments?: (.*)$/.exec(msg ?? '');
      const text = unknown ? unknown[1].split(', ').map((a) => `unknown flag: --${a}`).join('\n') : msg;
      process.stderr.write(`Error: ${text}\nRun "apiserver --help" for the flags.\n`);
      process.exit(1);
    });
  await cli
    .command(validateCommand())
    .command(snapshotCommand())
    .command(migrateStorageCommand())
    .command(
      '$0',
      'Serves ClusterTrustBundles (certificates.plat.io/v1alpha1) over HTTPS, Kubernetes-compatible.',
      (y) => declareServeFlags(y),
      (argv) => serve(argv as unknown as RawFlags),
    )
    .parseAsync();
}

main(hideBin(process.argv)).catch((err: unknown) => {
  process.stderr.write(`apiserver: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
