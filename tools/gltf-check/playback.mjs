// Plays animations of a GLB with three.js (GLTFLoader + AnimationMixer) in node, without a DOM.
//
//   node playback.mjs FILE.glb REQUEST.json
//
// REQUEST: [{"animation": INDEX, "times": [SECONDS...]}, ...]. For each request and time, the
// animation alone is applied (LoopOnce, clamped at its end) and the local transforms of the
// nodes its channels target are printed:
// [{"animation": i, "name": n, "samples": [{"time": t, "nodes": {"NODE_INDEX":
//   {"name": original glTF name, "t": [x,y,z], "r": [x,y,z,w], "s": [x,y,z]}}}]}]
import { readFileSync } from 'node:fs';
import { AnimationMixer, LoopOnce } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const [file, requestFile] = process.argv.slice(2);
if (!file || !requestFile) {
  console.error('usage: node playback.mjs FILE.glb REQUEST.json');
  process.exit(2);
}
const data = readFileSync(file);
const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
const requests = JSON.parse(readFileSync(requestFile, 'utf8'));

const gltf = await new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
const json = gltf.parser.json;
const out = [];
for (const req of requests) {
  const a = req.animation;
  const clip = gltf.animations[a];
  if (!clip) throw new Error(`no animation ${a}`);
  const targets = [...new Set(json.animations[a].channels.map((c) => c.target.node))].sort((x, y) => x - y);
  const objects = await Promise.all(targets.map((n) => gltf.parser.getDependency('node', n)));
  const mixer = new AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(LoopOnce, 1);
  action.clampWhenFinished = true;
  const samples = [];
  for (const t of req.times) {
    action.reset();
    action.play();
    mixer.setTime(t);
    const nodes = {};
    targets.forEach((n, k) => {
      const o = objects[k];
      nodes[n] = {
        name: json.nodes[n].name,
        t: o.position.toArray(),
        r: o.quaternion.toArray(),
        s: o.scale.toArray(),
      };
    });
    samples.push({ time: t, nodes });
  }
  action.stop();
  mixer.uncacheRoot(gltf.scene);
  out.push({ animation: a, name: clip.name, samples });
}
console.log(JSON.stringify(out));
