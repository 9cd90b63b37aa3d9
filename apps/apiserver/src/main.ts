import pkg from '../package.json' with { type: 'json' };

const args = process.argv.slice(2);
process.stdout.write(`apiserver v${pkg.version}\n`);
if (args.includes('--version')) process.exit(0);
process.stderr.write('apiserver: not implemented yet\n');
process.exit(1);
