// ESLint flat config: the recommended JavaScript and typescript-eslint rules
// (syntax-based, no type information, so it runs in seconds), plus the house
// rules of shared/STYLE.md that a linter can check: no default exports and no
// `any` in code we write. Generated files are left out: they say so in their
// first line and a drift test guards them.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**', 'src/render/generated/**', 'test/generated/**', 'schemas/**', 'demo-output/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Named exports only (shared/STYLE.md).' }],
      // Control characters in patterns are deliberate here: input is checked for them
      // (bidi overrides, C0 controls in keys and XHTML).
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and benchmarks may use loose types where a fixture needs them.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts', 'test/support/summary-reporter.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
