import pkg from '../package.json' with { type: 'json' };

const args = process.argv.slice(2);
if (args.includes('--version')) {
  process.stdout.write(`Client Version: v${pkg.version}\n`);
  process.exit(0);
}
process.stderr.write('error: not implemented yet\n');
process.exit(1);
