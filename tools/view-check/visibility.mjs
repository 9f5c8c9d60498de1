// Checks the bone-visibility display of `animkit view` in headless Debian chromium. Run by
// crates/animkit-cli/tests/view_e2e.rs, which compares the states printed here with animkit's own
// sampling.
//
//   node visibility.mjs REQUEST.json
//
// REQUEST: {"html": self-contained page, "clip": name, "times": [seconds], "screenshot": PNG path,
//           "chromium": executable (default /usr/bin/chromium)}
// Prints one JSON object: {"states": [[{target, visible}] per time], "labels": [[strip text] per time],
//   "points": [[r, g, b] per joint, per time], "bones": [names], "console_errors": [...]}
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const request = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const profile = mkdtempSync(join(tmpdir(), 'animkit-view-visibility-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: request.chromium ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  viewport: { width: 1280, height: 800 },
});
const result = { states: [], labels: [], points: [], console_errors: [] };
try {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') result.console_errors.push(m.text()); });
  page.on('pageerror', (e) => result.console_errors.push(String(e)));
  await page.goto(pathToFileURL(request.html).href);
  await page.waitForFunction(() => window.animkitView && (window.animkitView.isReady || window.animkitView.error), null, { timeout: 30000 });
  const error = await page.evaluate(() => window.animkitView.error);
  if (error) throw new Error(`page error: ${error}`);
  result.bones = await page.evaluate(() => window.animkitView.bones());
  await page.evaluate((c) => { window.animkitView.pause(); window.animkitView.selectClip(c); }, request.clip);
  for (const t of request.times) {
    await page.evaluate((time) => window.animkitView.seek(time), t);
    // Two animation frames: the render that recolours the joints has run.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    result.states.push(await page.evaluate(() => window.animkitView.visibilityAt()));
    result.labels.push(await page.evaluate(() => [...document.querySelectorAll('#textures .strip-label')].map((e) => e.textContent)));
    result.points.push(await page.evaluate(() => window.animkitView.jointColours()));
  }
  await page.screenshot({ path: request.screenshot });
} catch (e) {
  result.error = String(e.stack ?? e);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
