import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The tests read shared data of the repository (tests/data/printable_cases.json, as text).
  server: { fs: { allow: ['..'] } },
  test: {
    environment: 'jsdom',
    include: ['test/**/*.spec.ts']
  }
});
