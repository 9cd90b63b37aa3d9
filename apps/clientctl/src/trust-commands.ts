import type { CommandSpec } from './command-table.js';
import type { FlagSpec } from './flags.js';

// `clientctl trust ...`: thin wiring over @plat/trust (docs/trust-distribution.md).
const selectionFlags: FlagSpec[] = [
  { name: 'signer', type: 'string', usage: 'Select every ClusterTrustBundle of this signer (narrowed by -l) instead of one by NAME.' },
  { name: 'selector', short: 'l', type: 'string', usage: "Label selector narrowing --signer's bundles, supports '=', '==', '!=', 'in', 'notin', exists and !key (e.g. -l stage=current)." },
];

export const trustCommands: CommandSpec[] = [
  {
    path: 'trust inspect',
    short: 'Show the trust anchors of a bundle, a signer or a file, with their expiry',
    usage: 'clientctl trust inspect (NAME | --signer SIGNER [-l SELECTOR] | -f FILE) [--fail-within DURATION] [--timeline [--width COLUMNS]] [options]',
    examples: `  # The anchors of one ClusterTrustBundle
  clientctl trust inspect example.com:mesh:roots

  # Every anchor of a signer, as JSON
  clientctl trust inspect --signer example.com/mesh -o json

  # Fail (exit 1) when an anchor of the file written by 'trust sync' expires within 30 days
  clientctl trust inspect -f /etc/plat/mesh-ca.pem --fail-within 720h

  # The signer's anchors on a time axis, those expiring within 30 days highlighted
  clientctl trust inspect --signer example.com/mesh --timeline --fail-within 720h`,
    flags: [
      ...selectionFlags,
      { name: 'filename', short: 'f', type: 'string', usage: 'A PEM bundle or ClusterTrustBundle manifests to inspect instead of the server ("-" reads stdin).' },
      { name: 'output', short: 'o', type: 'string', usage: 'Output format. One of: (json, yaml).' },
      { name: 'fail-within', type: 'duration', default: '0s', usage: 'Exit 1, naming them, when anchors expire within this duration (e.g. 720h); expired anchors count. 0 disables.' },
      { name: 'no-headers', type: 'bool', usage: "When using the default output format, don't print headers." },
      { name: 'timeline', type: 'bool', usage: 'Draw the anchors on a time axis instead of the table: one bar per anchor from notBefore to notAfter, today marked, expired (x) and expiring within --fail-within (!) highlighted; colours on a terminal unless NO_COLOR is set.' },
      { name: 'width', type: 'int', default: 0, usage: "Columns of the --timeline drawing. 0 means the terminal's width, or 80 when stdout is not a terminal." },
    ],
    offline: (ctx) => ctx.flags.str('filename') !== '',
    load: async () => (await import('./commands/trust.js')).runTrustInspect,
  },
  {
    path: 'trust resolve',
    short: 'Print the canonical PEM of a bundle or of a signer\'s bundles',
    usage: 'clientctl trust resolve (NAME | --signer SIGNER [-l SELECTOR]) [options]',
    examples: `  # The anchors every consumer of the signer gets, in canonical form
  clientctl trust resolve --signer example.com/mesh > mesh-ca.pem

  # With the digest and the anchors
  clientctl trust resolve example.com:mesh:roots -o json`,
    flags: [...selectionFlags, { name: 'output', short: 'o', type: 'string', usage: 'Output format. One of: (json, yaml). Default: the PEM alone.' }],
    load: async () => (await import('./commands/trust.js')).runTrustResolve,
  },
  {
    path: 'trust sync',
    short: 'Keep a file equal to the trust anchors of a bundle or a signer',
    usage: 'clientctl trust sync (NAME | --signer SIGNER [-l SELECTOR]) --to FILE [--exec COMMAND] [--once] [options]',
    examples: `  # Keep /etc/plat/mesh-ca.pem current and reload nginx after each change
  clientctl trust sync --signer example.com/mesh --to /etc/plat/mesh-ca.pem --exec 'nginx -s reload'

  # Write the file once (at boot, in an init container) and exit
  clientctl trust sync example.com:mesh:roots --to /etc/plat/mesh-ca.pem --once`,
    flags: [
      ...selectionFlags,
      { name: 'to', type: 'string', usage: 'The file to keep equal to the anchors (replaced atomically, mode 0644).' },
      { name: 'exec', type: 'string', usage: 'A shell command run after each change of the file (a failure is logged, the sync goes on).' },
      { name: 'once', type: 'bool', usage: 'Write the file if it differs, then exit.' },
    ],
    load: async () => (await import('./commands/trust.js')).runTrustSync,
  },
];
