// ESLint with typescript-eslint's type-aware rules: promises that nobody awaits or that are passed
// where a plain value is expected are bugs in a server, so they are errors here.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'test-output/',
      'bench/**/*.mjs',
      'src/inspection/ui/inspector-ui/**/*.js',
      'eslint.config.js',
    ],
  },
  js.configs.recommended,
  { files: ['scripts/**/*.mjs'], languageOptions: { globals: globals.node } },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      // Tests read untyped JSON answers; the app's own code is strict through tsc.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
)
