// End-to-end check of `animkit view` in headless Debian chromium (never a downloaded browser),
// driven by playwright-core. Run by crates/animkit-cli/tests/view_e2e.rs, which compares the
// transforms printed here with animkit's own sampling.
//
//   node e2e.mjs REQUEST.json
//
// REQUEST: {"url": served page, "html": self-contained file (of two files: the served one and its GLB
//           conversion, shown side by side), "clip": name, "time": seconds,
//           "bones": [names], "screenshot": PNG path, "chromium": executable (default /usr/bin/chromium)}
// Prints one JSON object: {"first_frame_ms", "goto_to_ready_ms", "clips", "displayed": {bone: {r, t}},
//   "api": {bone: {r, t, s}}, "screenshot": {variance, mean}, "file": {...}}
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const request = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const profile = mkdtempSync(join(tmpdir(), 'animkit-view-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: request.chromium ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
  viewport: { width: 1280, height: 800 },
});
const result = {};
const consoleErrors = [];

async function waitReady(page) {
  await page.waitForFunction(() => window.animkitView && (window.animkitView.isReady || window.animkitView.error), null, { timeout: 30000 });
  const error = await page.evaluate(() => window.animkitView.error);
  if (error) throw new Error(`page error: ${error}`);
}

/// The selected bone's transform as the side panel shows it (text parsed back to numbers).
async function displayed(page, bone, view = 0) {
  await page.evaluate((b) => window.animkitView.selectBone(b), bone);
  return page.evaluate((v) => {
    const cells = [...document.querySelectorAll(`#bone-transform [data-view="${v}"] td[data-k]`)];
    const get = (k) => cells.filter((c) => c.dataset.k.startsWith(k)).map((c) => Number(c.textContent));
    return { r: get('r'), t: get('t'), s: get('s') };
  }, view);
}

/// Mean and variance of the screenshot's luminance, decoded by the browser itself.
async function imageStats(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let sum = 0;
    let sum2 = 0;
    const n = d.length / 4;
    for (let i = 0; i < d.length; i += 4) {
      const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      sum += y;
      sum2 += y * y;
    }
    const mean = sum / n;
    return { width: c.width, height: c.height, mean, variance: sum2 / n - mean * mean };
  }, png.toString('base64'));
}

try {
  // 1. The served page.
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const start = Date.now();
  await page.goto(request.url);
  await waitReady(page);
  result.goto_to_ready_ms = Date.now() - start;
  result.first_frame_ms = await page.evaluate(() => window.animkitView.firstFrameMs);
  result.clips = await page.evaluate(() => window.animkitView.clips());
  const selected = await page.evaluate((c) => window.animkitView.selectClip(c), request.clip);
  if (!selected) throw new Error(`clip ${request.clip} not found on the page`);
  result.seeked = await page.evaluate((t) => window.animkitView.seek(t), request.time);
  result.state = await page.evaluate(() => { const s = window.animkitView.state(); return { time: s.time, frame: s.frame, clip: s.clip, duration: s.duration }; });
  result.displayed = {};
  result.api = {};
  for (const bone of request.bones) {
    result.displayed[bone] = await displayed(page, bone);
    result.api[bone] = await page.evaluate((b) => window.animkitView.boneTransform(b), bone);
  }
  // Let a few frames render, then the screenshot.
  const rc = await page.evaluate(() => window.animkitView.state().renderCount);
  await page.waitForFunction((n) => window.animkitView.state().renderCount > n + 2, rc);
  const png = await page.screenshot({ path: request.screenshot });
  result.screenshot = await imageStats(page, png);
  // Playing advances time.
  await page.evaluate(() => { window.animkitView.seek(0); window.animkitView.play(); });
  await page.waitForFunction(() => window.animkitView.state().time > 0.2, null, { timeout: 15000 });
  result.played_to = await page.evaluate(() => { window.animkitView.pause(); return window.animkitView.state().time; });
  await page.close();

  // 2. The self-contained file, from file:// with the network off.
  const blocked = [];
  await context.setOffline(true);
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file:') || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    blocked.push(u);
    return route.abort();
  });
  const filePage = await context.newPage();
  filePage.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`file: ${m.text()}`); });
  filePage.on('pageerror', (e) => consoleErrors.push(`file: ${e}`));
  const fileStart = Date.now();
  await filePage.goto(pathToFileURL(request.html).href);
  await waitReady(filePage);
  const file = { goto_to_ready_ms: Date.now() - fileStart, first_frame_ms: await filePage.evaluate(() => window.animkitView.firstFrameMs) };
  file.clips = await filePage.evaluate(() => window.animkitView.clips().length);
  await filePage.evaluate((c) => window.animkitView.selectClip(c), request.clip);
  await filePage.evaluate((t) => window.animkitView.seek(t), request.time);
  const bone = request.bones[0];
  file.displayed = { [bone]: await displayed(filePage, bone) };
  // A second file (the same clips converted to GLB) plays in sync beside the first.
  file.files = await filePage.evaluate(() => window.animkitView.files());
  if (file.files.length > 1) {
    file.side_by_side = {};
    for (const b of request.bones) file.side_by_side[b] = [await displayed(filePage, b, 0), await displayed(filePage, b, 1)];
  }
  const before = await filePage.evaluate(() => { window.animkitView.seek(0); window.animkitView.play(); return window.animkitView.state().renderCount; });
  await filePage.waitForFunction((n) => { const s = window.animkitView.state(); return s.time > 0.2 && s.renderCount > n + 3; }, before, { timeout: 15000 });
  file.played = await filePage.evaluate(() => { const s = window.animkitView.state(); window.animkitView.pause(); return { time: s.time, playing: s.playing, renderCount: s.renderCount }; });
  file.played.frames_rendered = file.played.renderCount - before;
  const filePng = await filePage.screenshot();
  file.screenshot = await imageStats(filePage, filePng);
  file.blocked_requests = blocked;
  result.file = file;
} catch (e) {
  result.error = String(e?.stack ?? e);
} finally {
  result.console_errors = consoleErrors;
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
