import { existsSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { startDemoStack } from '../../scripts/demo-stack.mjs';

// Two Playwright workers run two demo stacks at once. Vite rewrites (deletes, then refills) its
// dependency cache when it discovers a dependency: had the two servers shared one cache folder, one
// could pull modules from under the other's page, whose script then never ran ("body[data-ready]"
// never appeared: seen once under load). Each stack has a cache of its own.
test('two demo stacks at once: separate Vite caches, and both pages run from cold caches', async ({ browser }) => {
  test.setTimeout(90_000);
  const stacks = await Promise.all([0, 1].map(() => startDemoStack({ emulatorPort: 0, relayPort: 0, pagePort: 0, watch: false, quiet: true, language: 'en' })));
  try {
    const [a, b] = stacks.map((s) => s.viteCacheDir);
    expect(a).not.toBe(b);
    for (const dir of [a, b]) expect(dir).not.toMatch(/node_modules[\\/]\.vite/);
    const pages = await Promise.all(stacks.map(() => browser.newPage()));
    await Promise.all(pages.map((page, i) => page.goto(stacks[i]!.pageUrl)));
    for (const page of pages) await expect(page.locator('body[data-ready="true"]')).toBeAttached({ timeout: 60_000 });
    await Promise.all(pages.map((page) => page.close()));
  } finally {
    await Promise.all(stacks.map((s) => s.close()));
  }
  for (const s of stacks) expect(existsSync(s.viteCacheDir)).toBe(false);
});
