// esbuild options of `nx run clientctl:build` (the nx executor adds entry, outdir, format, platform).
// Start-up time is a product requirement (docs/performance.md): commands load their code lazily
// (splitting into chunks), and the pure libraries below are declared free of import side effects
// so that esbuild drops the modules a command does not use (for example zod behind the Status
// decoder and pkijs/asn1js behind @plat/api-model's certificate validation).
const sideEffectFree =
  /[\\/](packages[\\/](api-model|x509|client|patch|trust)[\\/]src|node_modules[\\/](pkijs|asn1js|pvtsutils|pvutils|bytestreamjs|@peculiar[\\/][\w-]+|@noble[\\/][\w-]+))[\\/]/;

const sideEffectFreePlugin = {
  name: 'plat-side-effect-free',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'plat-resolving' || args.kind === 'entry-point') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'plat-resolving',
      });
      if (resolved.errors.length || resolved.external || !sideEffectFree.test(resolved.path)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

export default {
  conditions: ['@plat/source'],
  sourcemap: true,
  target: 'node20',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  minifySyntax: true,
  legalComments: 'none',
  outExtension: { '.js': '.mjs' },
  banner: {
    js: "import { createRequire as __platCreateRequire } from 'node:module'; const require = __platCreateRequire(import.meta.url);",
  },
  plugins: [sideEffectFreePlugin],
};
