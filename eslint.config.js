// Lint rules that `npm test` runs (issue #18): eslint's and typescript-eslint's recommended sets.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const node = {
  process: 'readonly',
  console: 'readonly',
  URL: 'readonly',
  Buffer: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
}

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tap/**', 'test-artifacts/**', 'data/**'],
  },
  // Its tests assert the line of each deliberate type error: the layout is part of the fixture.
  { ignores: ['test/fixtures/typed-client/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: node } },
  {
    rules: {
      // A leading underscore marks what a destructuring leaves out on purpose.
      // Code lines stay under 120 columns (prettier wraps them); a long message string stays whole,
      // so that a Spanish message found in a log or a test can be found in the source with grep.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read JSON answers whose shape each assertion states; typing every body adds nothing.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
)
