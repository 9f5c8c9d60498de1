// Rebuilds crates/animkit-cli/src/view/vendor/three-bundle.min.js: three.js (the version pinned in
// package-lock.json) with the GLTFLoader and OrbitControls addons, as one minified ES module that
// `animkit view` bundles into its binary. Run: npm ci --prefix tools/view && npm run --prefix tools/view vendor
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../../crates/animkit-cli/src/view/vendor/three-bundle.min.js');
const version = JSON.parse(readFileSync(join(here, 'node_modules/three/package.json'), 'utf8')).version;
const licence = readFileSync(join(here, 'node_modules/three/LICENSE'), 'utf8');
const result = await build({
  stdin: {
    contents: [
      "export * from 'three';",
      "export { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';",
      "export { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';",
    ].join('\n'),
    resolveDir: here,
    loader: 'js',
  },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  legalComments: 'none',
  write: false,
});
const header = `/*! three.js ${version} (npm "three"): build/three.module.js + examples/jsm/loaders/GLTFLoader.js +\n` +
  ` * examples/jsm/controls/OrbitControls.js, bundled and minified with esbuild by tools/view/vendor.mjs.\n *\n` +
  licence.trim().split('\n').map((l) => ` * ${l}`.trimEnd()).join('\n') + '\n */\n';
writeFileSync(out, header + result.outputFiles[0].text);
console.log(`wrote ${out}`);
