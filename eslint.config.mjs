import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// Layers (see the README): x509, cel → api-model → config, storage, patch, egress, telemetry
// → auth, client → server, trust → registry → controllers → control-plane → apps. A project may import only
// projects of strictly lower layers; the tags of one layer (server and trust) do not see each other.
const layers = [['layer:0-base'], ['layer:1-model'], ['layer:2-infra'], ['layer:3-access'], ['layer:4-server', 'layer:4-trust'], ['layer:5-registry'], ['layer:6-controllers'], ['layer:7-control-plane'], ['layer:8-app']];
const depConstraints = layers.flatMap((tags, index) =>
  tags.map((tag) => ({ sourceTag: tag, onlyDependOnLibsWithTags: layers.slice(0, index).flat() })),
);

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/*.generated.json', '.nx/**'] },
  ...nx.configs['flat/base'],
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints,
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'No default exports (STYLE.md).' }],
    },
  },
  {
    // README examples import their own package by name, as a consumer does; the layers still hold.
    files: ['packages/*/examples/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allowCircularSelfDependency: true, allow: [], depConstraints },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', 'packages/*/src/testing.ts', 'packages/*/src/testing/**/*.ts', 'tools/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
