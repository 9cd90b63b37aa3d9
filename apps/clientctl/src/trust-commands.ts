import type { CommandSpec } from './command-table.js';
import type { FlagSpec } from './flags.js';

// `clientctl trust ...`: thin wiring over @plat/trust (docs/trust-distribution.md).
const selectionFlags: FlagSpec[] = [
  { name: 'signer', type: 'string', usage: 'Select every ClusterTrustBundle of this signer (narrowed by -l) instead of one by NAME.' },
  { name: 'selector', short: 'l', type: 'string', usage: "Label selector narrowing --signer's bundles, supports '=', '==', '!=', 'in', 'notin', exists and !key (e.g. -l stage=current)." },
];

// Formats, keystore password and the consumer's filter (resolve, sync; serve takes the filter).
const formatFlags: FlagSpec[] = [
  { name: 'password-file', type: 'string', usage: 'A file whose first line is the keystore password (jks: default "changeit"; pkcs12: default none, a password-less store as Java 18+ writes).' },
  { name: 'legacy-pkcs12', type: 'bool', usage: 'Write PKCS#12 with pbeWithSHAAnd3-KeyTripleDES-CBC and a SHA-1 MAC, for readers without PBES2 (Java before 8u301, OpenSSL 1.0).' },
];
const refreshHintFlag: FlagSpec = { name: 'spiffe-refresh-hint', type: 'duration', default: '5m0s', usage: 'The spiffe_refresh_hint of SPIFFE bundles.' };
const filterFlags: FlagSpec[] = [
  { name: 'exclude-expired', type: 'bool', usage: 'Leave out anchors whose notAfter has passed, naming them in a warning (the server keeps them; this consumer does not trust them).' },
  { name: 'min-remaining', type: 'duration', default: '0s', usage: 'Warn about anchors that expire within this duration (e.g. 720h); nothing is left out for it. 0 disables.' },
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
    short: 'Print the anchors of a bundle or of a signer\'s bundles: canonical PEM, a Java truststore or a SPIFFE bundle',
    usage: 'clientctl trust resolve (NAME | --signer SIGNER [-l SELECTOR]) [-o pem|pkcs12|jks|spiffe|json|yaml] [options]',
    examples: `  # The anchors every consumer of the signer gets, in canonical form
  clientctl trust resolve --signer example.com/mesh > mesh-ca.pem

  # With the digest and the anchors
  clientctl trust resolve example.com:mesh:roots -o json

  # A JKS truststore for Java clients (password changeit), without expired anchors
  clientctl trust resolve --signer example.com/mesh -o jks --exclude-expired > mesh-ca.jks`,
    flags: [
      ...selectionFlags,
      { name: 'output', short: 'o', type: 'string', usage: 'Output format. One of: (pem, pkcs12, jks, spiffe, json, yaml). Default: pem, the canonical PEM.' },
      ...formatFlags,
      refreshHintFlag,
      ...filterFlags,
    ],
    load: async () => (await import('./commands/trust.js')).runTrustResolve,
  },
  {
    path: 'trust sync',
    short: 'Keep files equal to the trust anchors of a bundle or a signer, as PEM, PKCS#12, JKS or a SPIFFE bundle',
    usage: 'clientctl trust sync (NAME | --signer SIGNER [-l SELECTOR]) [--format FORMAT] --to FILE... [--exec COMMAND] [--once] [options]',
    examples: `  # Keep /etc/plat/mesh-ca.pem current and reload nginx after each change
  clientctl trust sync --signer example.com/mesh --to /etc/plat/mesh-ca.pem --exec 'nginx -s reload'

  # Write the file once (at boot, in an init container) and exit
  clientctl trust sync example.com:mesh:roots --to /etc/plat/mesh-ca.pem --once

  # A PEM file and a JKS truststore for Kafka's Java clients, from one watch
  clientctl trust sync --signer example.com/mesh --format pem --to /etc/plat/mesh-ca.pem --format jks --to /etc/kafka/truststore.jks`,
    flags: [
      ...selectionFlags,
      { name: 'to', type: 'stringArray', usage: 'A file to keep equal to the anchors (replaced atomically, mode 0644). Repeat with --format for several files.' },
      { name: 'format', type: 'stringArray', usage: 'The format of the --to at the same position: pem, pkcs12, jks or spiffe. Default: pem for every --to.' },
      ...formatFlags,
      refreshHintFlag,
      ...filterFlags,
      { name: 'exec', type: 'string', usage: 'A shell command run after each change of the file (a failure is logged, the sync goes on).' },
      { name: 'once', type: 'bool', usage: 'Write the file if it differs, then exit.' },
    ],
    load: async () => (await import('./commands/trust.js')).runTrustSync,
  },
  {
    path: 'trust serve',
    short: 'Serve the trust anchors of a bundle or a signer as a SPIFFE federation bundle endpoint',
    usage: 'clientctl trust serve (NAME | --signer SIGNER [-l SELECTOR]) --spiffe --listen ADDR --tls-cert-file FILE --tls-private-key-file FILE [options]',
    examples: `  # The mesh CA as a SPIFFE bundle endpoint (https_web profile) on port 8443
  clientctl trust serve --signer example.com/mesh --spiffe --listen 0.0.0.0:8443 \\
    --tls-cert-file /etc/plat/bundle-endpoint.crt --tls-private-key-file /etc/plat/bundle-endpoint.key`,
    flags: [
      ...selectionFlags,
      { name: 'spiffe', type: 'bool', usage: 'Serve a SPIFFE bundle (JWKS with spiffe_sequence and spiffe_refresh_hint); the one format served today, required.' },
      { name: 'listen', type: 'string', default: '127.0.0.1:8443', usage: 'The address to listen on, HOST:PORT (port 0 picks a free one, printed in the log).' },
      { name: 'path', type: 'string', default: '/', usage: 'The URL path of the bundle.' },
      { name: 'tls-cert-file', type: 'string', usage: 'The serving certificate chain (PEM); its CA must be one the federation clients trust.' },
      { name: 'tls-private-key-file', type: 'string', usage: 'The serving key (PEM).' },
      refreshHintFlag,
      ...filterFlags,
    ],
    load: async () => (await import('./commands/trust-serve.js')).runTrustServe,
  },
];
