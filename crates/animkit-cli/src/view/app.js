// animkit view: plays GLBs made by animkit's glTF export (or any GLB) with three.js.
// Loaded as an inline module; `three` resolves through the page's import map to the bundled
// three.js (a local URL or a data: URL), so nothing comes from the network.
import * as THREE from 'three';
import { GLTFLoader, OrbitControls } from 'three';

const moduleStart = performance.now();
const $ = (id) => document.getElementById(id);
const files = JSON.parse($('animkit-files').textContent);
const COLORS = ['#ff6b6b', '#5fd35f', '#5aa0ff', '#e8e8e8'];
const COMPONENTS = { rotation: ['x', 'y', 'z', 'w'], translation: ['x', 'y', 'z'], scale: ['x', 'y', 'z'] };
const PROPERTY = { quaternion: 'rotation', position: 'translation', scale: 'scale' };

const state = {
  time: 0, playing: false, speed: 1, loop: true, clip: null, bone: null, channel: null, duration: 0, fps: 30,
};
const views = [];
let renderCount = 0;
let resolveReady;
const api = {
  isReady: false,
  error: null,
  firstFrameMs: null,
  timings: { moduleStart },
  ready: new Promise((r) => { resolveReady = r; }),
  files: () => views.map((v) => ({ name: v.file.name, format: v.file.format, clips: v.clips.length, bones: v.bones.length })),
  clips: (i = 0) => views[i].clips.map((c) => ({ name: c.name, duration: c.duration, keyed: !!c.three })),
  bones: (i = 0) => views[i].bones.map((b) => b.name),
  selectClip, seek, selectBone,
  play: () => setPlaying(true),
  pause: () => setPlaying(false),
  setSpeed: (s) => { state.speed = s; },
  setLoop: (l) => { state.loop = l; $('loop').checked = l; },
  boneTransform, textureAt,
  jointColours: (i = 0) => {
    const c = views[i]?.points.geometry.attributes.color;
    return (views[i]?.bones ?? []).map((_, k) => [c.getX(k), c.getY(k), c.getZ(k)].map((x) => +x.toFixed(3)));
  },
  visibilityAt: (t = state.time) => views.flatMap((v) => (v.clip?.visibility ?? [])
    .map((tr) => ({ file: v.index, target: tr.label, visible: visibleAt(tr, t) }))),
  state: () => ({ ...state, frame: frameOf(state.time), renderCount }),
};
window.animkitView = api;

function decodeBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function loadBytes(file) {
  if (file.source.url) {
    const r = await fetch(file.source.url);
    if (!r.ok) throw new Error(`${file.name}: HTTP ${r.status}`);
    return r.arrayBuffer();
  }
  const bytes = decodeBase64($(file.source.element).textContent.trim());
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

function targetLabel(target) {
  if (!target) return '?';
  if (target.material) return `${target.material.material}.${target.material.property}`;
  const b = target.bone || {};
  return b.name ?? (b.id !== undefined ? `#${b.id}` : b.hash !== undefined ? `0x${b.hash.toString(16)}` : `[${b.index}]`);
}

/// Texture-pattern tracks of a clip, from the exporter's extras.
function textureTracks(extras) {
  return (extras?.tracks ?? [])
    .filter((e) => e.track?.values?.texture_index)
    .map((e) => ({
      label: targetLabel(e.track.target),
      times: e.track.times,
      indices: e.track.values.texture_index.indices,
      textures: e.track.values.texture_index.textures,
    }));
}

/// Bone-visibility tracks of a clip, from the exporter's extras (the lossless model tracks).
function visibilityTracks(extras) {
  return (extras?.tracks ?? [])
    .filter((e) => Array.isArray(e.track?.values?.visibility))
    .map((e) => ({ label: targetLabel(e.track.target), times: e.track.times, states: e.track.values.visibility }));
}

/// Whether a visibility track shows its bone at `t` (step: the last key at or before `t`).
function visibleAt(track, t) {
  let k = 0;
  while (k + 1 < track.times.length && track.times[k + 1] <= t + 1e-6) k++;
  return track.states[k] ?? true;
}

/// The names of the bones the current clip of `view` hides at `t`.
function hiddenBones(view, t = state.time) {
  return new Set((view.clip?.visibility ?? []).filter((tr) => !visibleAt(tr, t)).map((tr) => tr.label));
}

async function loadView(file, index) {
  const gltf = await new GLTFLoader().parseAsync(await loadBytes(file), '');
  const json = gltf.parser.json;
  const nodes = await Promise.all((json.nodes ?? []).map((_, i) => gltf.parser.getDependency('node', i)));
  const nodeByObjectName = new Map(nodes.map((o, i) => [o.name || o.uuid, i]));
  const isHelper = (i) => json.nodes[i].mesh !== undefined || json.nodes[i].extras?.animkit?.role === 'up_axis_z';
  const boneIndices = json.skins?.length
    ? [...new Set(json.skins.flatMap((s) => s.joints))]
    : nodes.map((_, i) => i).filter((i) => !isHelper(i));
  const bones = boneIndices.map((i) => ({ name: json.nodes[i].name ?? `node ${i}`, node: i, object: nodes[i] }));
  const byName = new Map(bones.map((b) => [b.name, b]));

  const clips = [];
  (json.animations ?? []).forEach((a, i) => {
    const three = gltf.animations[i];
    const extras = a.extras?.animkit ?? {};
    const tracks = new Map(); // "node/channel" -> KeyframeTrack
    for (const t of three.tracks) {
      const dot = t.name.lastIndexOf('.');
      const node = nodeByObjectName.get(t.name.slice(0, dot));
      const channel = PROPERTY[t.name.slice(dot + 1)];
      if (node !== undefined && channel) tracks.set(`${node}/${channel}`, t);
    }
    clips.push({
      name: a.name ?? three.name, order: extras.clip_index ?? i, duration: extras.duration ?? three.duration,
      fps: extras.frame_rate, three, tracks, textures: textureTracks(extras), visibility: visibilityTracks(extras),
      trackCount: a.channels.length,
    });
  });
  for (const e of json.extras?.animkit?.empty_clips ?? []) {
    clips.push({
      name: e.name, order: e.clip_index ?? clips.length, duration: e.duration ?? 0, fps: e.frame_rate,
      three: null, tracks: new Map(), textures: textureTracks(e), visibility: visibilityTracks(e),
      trackCount: (e.tracks ?? []).length,
    });
  }
  clips.sort((a, b) => a.order - b.order);
  // Clips may share a name (a BFRES skeletal and visibility animation played together): the
  // second and later get " (2)", " (3)"… so that each can be listed and selected.
  const seen = new Map();
  for (const c of clips) {
    const n = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, n);
    if (n > 1) c.name = `${c.name} (${n})`;
  }

  gltf.scene.traverse((o) => { if (o.isMesh) o.visible = false; });
  const view = {
    file, index, gltf, nodes, bones, byName, clips, clipByName: new Map(clips.map((c) => [c.name, c])),
    mixer: new THREE.AnimationMixer(gltf.scene), action: null, clip: null,
  };
  setupScene(view);
  return view;
}

function setupScene(view) {
  const el = document.createElement('div');
  el.className = 'viewport';
  el.innerHTML = `<div class="label"></div><div class="note"></div>`;
  el.querySelector('.label').textContent = `${view.file.name} (${view.file.format})`;
  $('viewports').appendChild(el);
  view.el = el;
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x1c1f26);
  scene.add(view.gltf.scene);
  const grid = new THREE.GridHelper(10, 20, 0x3a404c, 0x2a2e37);
  scene.add(grid);
  const helper = new THREE.SkeletonHelper(view.gltf.scene);
  helper.material.linewidth = 2;
  scene.add(helper);
  const points = new THREE.Points(
    new THREE.BufferGeometry().setAttribute('position', new THREE.BufferAttribute(new Float32Array(view.bones.length * 3), 3)),
    new THREE.PointsMaterial({ vertexColors: true, size: 5, sizeAttenuation: false, depthTest: false }),
  );
  // Joints are yellow, or grey while a visibility track hides them.
  points.geometry.setAttribute('color', new THREE.BufferAttribute(new Float32Array(view.bones.length * 3), 3));
  points.frustumCulled = false;
  scene.add(points);
  const marker = new THREE.Mesh(new THREE.SphereGeometry(1, 12, 8), new THREE.MeshBasicMaterial({ color: 0xff4060, depthTest: false }));
  scene.add(marker);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
  Object.assign(view, { scene, grid, helper, points, marker, camera });
  const hasHierarchy = view.bones.some((b) => b.object.parent?.isBone);
  if (!hasHierarchy && view.bones.length > 1) {
    // Without a hierarchy every joint sits near the origin: show each bone's orientation as an
    // axis triad laid out on a grid instead (x red, y green, z blue).
    el.querySelector('.note').textContent = 'no bone hierarchy in this file: one axis triad per bone (pass --skeleton FILE)';
    const cols = Math.ceil(Math.sqrt(view.bones.length));
    view.triads = view.bones.map((b, i) => {
      const axes = new THREE.AxesHelper(0.4);
      axes.position.set((i % cols) - (cols - 1) / 2, 0.5, Math.floor(i / cols) - (cols - 1) / 2);
      scene.add(axes);
      return axes;
    });
    view.gltf.scene.visible = false;
    helper.visible = false;
  }
  try {
    const renderer = new THREE.WebGLRenderer({ antialias: true });
    renderer.setPixelRatio(window.devicePixelRatio);
    el.prepend(renderer.domElement);
    view.renderer = renderer;
    view.controls = new OrbitControls(camera, renderer.domElement);
  } catch (e) {
    el.querySelector('.note').textContent = `WebGL is not available (${e.message}): no 3D view`;
  }
}

/// Places the camera so that every joint is in view.
function frameView(view) {
  view.gltf.scene.updateMatrixWorld(true);
  const box = new THREE.Box3();
  const p = new THREE.Vector3();
  if (view.triads) for (const a of view.triads) box.expandByPoint(a.position);
  else for (const b of view.bones) box.expandByPoint(b.object.getWorldPosition(p));
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const center = box.getCenter(new THREE.Vector3());
  const radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 0.5);
  view.camera.position.copy(center).add(new THREE.Vector3(radius * 1.2, radius * 0.8, radius * 2.4));
  view.camera.near = radius / 100;
  view.camera.far = radius * 100;
  view.camera.updateProjectionMatrix();
  view.controls?.target.copy(center);
  view.controls?.update();
  view.grid.scale.setScalar(Math.max(radius / 2, 0.1));
  view.grid.position.y = box.min.y;
  view.radius = radius;
}

function applyTime(view, t) {
  if (!view.action) return;
  view.action.reset();
  view.action.play();
  view.mixer.setTime(Math.max(0, t));
}

function frameOf(t) {
  return Math.floor(t * state.fps + 1e-6);
}

function selectClip(name) {
  for (const view of views) {
    const clip = view.clipByName.get(name) ?? null;
    if (view.action) { view.action.stop(); view.mixer.uncacheAction(view.action.getClip()); }
    view.action = null;
    view.clip = clip;
    if (clip?.three) {
      view.action = view.mixer.clipAction(clip.three);
      view.action.setLoop(THREE.LoopOnce, 1);
      view.action.clampWhenFinished = true;
    }
    view.el.querySelector('.label').textContent =
      `${view.file.name} (${view.file.format})${clip ? '' : ` — no clip "${name}"`}`;
  }
  const primary = views.find((v) => v.clip) ?? views[0];
  state.clip = name;
  state.duration = Math.max(0, ...views.map((v) => v.clip?.duration ?? 0));
  state.fps = primary.clip?.fps || 30;
  state.time = Math.min(state.time, state.duration);
  $('timeline').max = String(state.duration || 1);
  for (const li of $('clip-list').children) li.classList.toggle('selected', li.dataset.name === name);
  updateChannels();
  drawTextureStrips();
  seek(0);
  return !!primary.clip;
}

function seek(t) {
  state.time = Math.min(Math.max(0, Number(t) || 0), state.duration);
  for (const view of views) applyTime(view, state.time);
  updatePanels();
  return state.time;
}

function selectBone(name) {
  state.bone = name;
  $('bone-select').value = name;
  updateChannels();
  updatePanels();
  return views.some((v) => v.byName.has(name));
}

function boneTransform(name, i = 0) {
  const b = views[i]?.byName.get(name);
  if (!b) return null;
  return { r: b.object.quaternion.toArray(), t: b.object.position.toArray(), s: b.object.scale.toArray() };
}

function activeTexture(track, t) {
  let k = 0;
  while (k + 1 < track.times.length && track.times[k + 1] <= t + 1e-6) k++;
  const index = track.indices[k];
  return track.textures[index] ?? `#${index}`;
}

function textureAt(t = state.time) {
  return views.flatMap((v) => (v.clip?.textures ?? []).map((tr) => ({ file: v.index, target: tr.label, texture: activeTexture(tr, t) })));
}

function setPlaying(p) {
  if (p && state.time >= state.duration && !state.loop) state.time = 0;
  state.playing = p;
  $('play').textContent = p ? '❚❚' : '▶';
}

// ---- panels ----

const fmt = (x) => (Math.abs(x) < 5e-7 ? 0 : x).toFixed(6);

function updatePanels() {
  $('timeline').value = String(state.time);
  $('time').textContent = `${state.time.toFixed(3)} / ${state.duration.toFixed(3)} s`;
  $('frame').textContent = `frame ${frameOf(state.time)} @ ${+state.fps.toFixed(3)} fps`;
  const out = [];
  for (const view of views) {
    const b = view.byName.get(state.bone);
    if (!b) continue;
    const o = b.object;
    const e = new THREE.Euler().setFromQuaternion(o.quaternion, 'XYZ');
    const row = (label, key, values) => `<tr><th>${label}</th>${values.map((v, k) => `<td data-k="${key}${k}">${fmt(v)}</td>`).join('')}</tr>`;
    out.push(`<div data-view="${view.index}"><h4></h4><table>
      <tr><th></th><th>x</th><th>y</th><th>z</th><th>w</th></tr>
      ${row('rot', 'r', o.quaternion.toArray())}
      ${row('euler°', 'e', [e.x, e.y, e.z].map(THREE.MathUtils.radToDeg))}
      ${row('trans', 't', o.position.toArray())}
      ${row('scale', 's', o.scale.toArray())}</table></div>`);
  }
  const panel = $('bone-transform');
  panel.innerHTML = out.join('') || '<p>no bone selected</p>';
  for (const div of panel.querySelectorAll('[data-view]')) div.querySelector('h4').textContent = views[+div.dataset.view].file.name;
  drawCurve();
  drawTextureCursor();
}

function updateChannels() {
  const view = views.find((v) => v.clip && v.byName.has(state.bone));
  const b = view?.byName.get(state.bone);
  const channels = b ? ['rotation', 'translation', 'scale'].filter((c) => view.clip.tracks.has(`${b.node}/${c}`)) : [];
  const select = $('curve-channel');
  select.innerHTML = channels.map((c) => `<option>${c}</option>`).join('');
  state.channel = channels.includes(state.channel) ? state.channel : channels[0] ?? null;
  if (state.channel) select.value = state.channel;
  $('curve-title').textContent = b
    ? `${state.bone} in ${view.clip.name}${channels.length ? '' : ': not animated'}`
    : 'select a bone';
}

/// The selected track's keys and a dense sampling of it.
function curveData() {
  const view = views.find((v) => v.clip && v.byName.has(state.bone));
  if (!view || !state.channel) return null;
  const b = view.byName.get(state.bone);
  const track = view.clip.tracks.get(`${b.node}/${state.channel}`);
  if (!track) return null;
  const n = track.getValueSize();
  const cubic = track.createInterpolant.isInterpolantFactoryMethodGLTFCubicSpline === true;
  const stride = cubic ? 3 * n : n;
  const keys = Array.from(track.times, (t, i) => ({ t, v: Array.from(track.values.subarray(i * stride + (cubic ? n : 0), i * stride + (cubic ? 2 * n : n))) }));
  const interpolant = track.createInterpolant(new Float32Array(n));
  const dur = Math.max(state.duration, 1e-6);
  const samples = [];
  const count = 400;
  for (let i = 0; i <= count; i++) {
    const t = (dur * i) / count;
    samples.push({ t, v: Array.from(interpolant.evaluate(t)) });
  }
  return { n, keys, samples, dur };
}

function drawCurve() {
  const canvas = $('curve');
  const w = (canvas.width = canvas.clientWidth * devicePixelRatio);
  const h = (canvas.height = canvas.clientHeight * devicePixelRatio);
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, w, h);
  const d = curveData();
  const dur = Math.max(state.duration, 1e-6);
  const x = (t) => 30 + ((w - 40) * t) / dur;
  if (d) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of [...d.samples, ...d.keys]) for (const v of s.v) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (hi - lo < 1e-6) { lo -= 1; hi += 1; }
    const y = (v) => h - 12 - ((h - 24) * (v - lo)) / (hi - lo);
    g.font = `${10 * devicePixelRatio}px sans-serif`;
    g.fillStyle = '#9aa3b2';
    g.fillText(hi.toFixed(3), 2, 12 * devicePixelRatio);
    g.fillText(lo.toFixed(3), 2, h - 2);
    for (let c = 0; c < d.n; c++) {
      g.strokeStyle = COLORS[c % COLORS.length];
      g.lineWidth = devicePixelRatio;
      g.beginPath();
      d.samples.forEach((s, i) => (i ? g.lineTo(x(s.t), y(s.v[c])) : g.moveTo(x(s.t), y(s.v[c]))));
      g.stroke();
      g.fillStyle = COLORS[c % COLORS.length];
      for (const k of d.keys) g.fillRect(x(k.t) - 2 * devicePixelRatio, y(k.v[c]) - 2 * devicePixelRatio, 4 * devicePixelRatio, 4 * devicePixelRatio);
    }
    g.fillStyle = '#9aa3b2';
    const legend = `${d.keys.length} keys ·`;
    g.fillText(legend, 60 * devicePixelRatio, 12 * devicePixelRatio);
    let lx = 60 * devicePixelRatio + g.measureText(legend).width + 6;
    COMPONENTS[state.channel].forEach((c, i) => {
      g.fillStyle = COLORS[i % COLORS.length];
      g.fillText(c, lx, 12 * devicePixelRatio);
      lx += g.measureText(c).width + 6;
    });
  }
  g.strokeStyle = '#ffffff';
  g.beginPath();
  g.moveTo(x(state.time), 0);
  g.lineTo(x(state.time), h);
  g.stroke();
}

function drawTextureStrips() {
  const box = $('textures');
  box.innerHTML = '';
  for (const view of views) {
    for (const tr of [...(view.clip?.textures ?? []), ...(view.clip?.visibility ?? [])]) {
      const label = document.createElement('div');
      label.className = 'strip-label';
      const canvas = document.createElement('canvas');
      box.append(label, canvas);
      tr.ui = { label, canvas, view };
    }
  }
  drawTextureCursor();
}

/// One strip per bone-visibility track: a cell per frame, green while shown, dark while hidden.
function drawVisibilityStrips(frames) {
  for (const view of views) {
    for (const tr of view.clip?.visibility ?? []) {
      if (!tr.ui) continue;
      const { label, canvas } = tr.ui;
      const now = visibleAt(tr, state.time) ? 'visible' : 'hidden';
      label.textContent = `${views.length > 1 ? `${view.file.name}: ` : ''}${tr.label} — bone visibility: ${now}`;
      const w = (canvas.width = canvas.clientWidth * devicePixelRatio);
      const h = (canvas.height = canvas.clientHeight * devicePixelRatio);
      const g = canvas.getContext('2d');
      const cell = w / frames;
      for (let f = 0; f < frames; f++) {
        g.fillStyle = visibleAt(tr, f / state.fps) ? '#3f9f5f' : '#2a2e37';
        g.fillRect(f * cell, 0, Math.ceil(cell), h);
      }
      g.strokeStyle = '#ffffff';
      g.lineWidth = 2 * devicePixelRatio;
      g.strokeRect(frameOf(state.time) * cell, 1, cell, h - 2);
    }
  }
}

function drawTextureCursor() {
  const frames = Math.max(1, Math.round(state.duration * state.fps) + 1);
  drawVisibilityStrips(frames);
  for (const view of views) {
    for (const tr of view.clip?.textures ?? []) {
      if (!tr.ui) continue;
      const { label, canvas } = tr.ui;
      label.textContent = `${views.length > 1 ? `${view.file.name}: ` : ''}${tr.label} — texture pattern: ${activeTexture(tr, state.time)}`;
      const w = (canvas.width = canvas.clientWidth * devicePixelRatio);
      const h = (canvas.height = canvas.clientHeight * devicePixelRatio);
      const g = canvas.getContext('2d');
      const cell = w / frames;
      g.font = `${10 * devicePixelRatio}px sans-serif`;
      for (let f = 0; f < frames; f++) {
        const name = activeTexture(tr, f / state.fps);
        const idx = Math.max(0, tr.textures.indexOf(name));
        g.fillStyle = `hsl(${(idx * 137) % 360} 55% 40%)`;
        g.fillRect(f * cell, 0, Math.ceil(cell), h);
        const prev = f > 0 ? activeTexture(tr, (f - 1) / state.fps) : null;
        if (name !== prev) {
          g.fillStyle = '#ffffff';
          g.fillText(name, f * cell + 2, h / 2 + 4);
        }
      }
      g.strokeStyle = '#ffffff';
      g.lineWidth = 2 * devicePixelRatio;
      g.strokeRect(frameOf(state.time) * cell, 1, cell, h - 2);
    }
  }
}

// ---- rendering ----

function render() {
  const p = new THREE.Vector3();
  for (const view of views) {
    if (!view.renderer) continue;
    const el = view.el;
    const w = el.clientWidth;
    const h = el.clientHeight;
    if (view.size !== `${w}x${h}`) {
      view.size = `${w}x${h}`;
      view.renderer.setSize(w, h, false);
      view.camera.aspect = w / Math.max(h, 1);
      view.camera.updateProjectionMatrix();
    }
    view.gltf.scene.updateMatrixWorld(true);
    const pos = view.points.geometry.attributes.position;
    const color = view.points.geometry.attributes.color;
    const hidden = hiddenBones(view);
    const q = new THREE.Quaternion();
    view.bones.forEach((b, i) => {
      const shown = !hidden.has(b.name);
      color.setXYZ(i, ...(shown ? [1, 0.816, 0.376] : [0.35, 0.35, 0.35]));
      if (view.triads) view.triads[i].visible = shown;
      if (view.triads) {
        view.triads[i].quaternion.copy(b.object.getWorldQuaternion(q));
        pos.setXYZ(i, ...view.triads[i].position.toArray());
      } else {
        pos.setXYZ(i, ...b.object.getWorldPosition(p).toArray());
      }
    });
    pos.needsUpdate = true;
    color.needsUpdate = true;
    const sel = view.byName.get(state.bone);
    view.marker.visible = !!sel;
    if (sel) {
      if (view.triads) view.marker.position.copy(view.triads[view.bones.indexOf(sel)].position);
      else sel.object.getWorldPosition(view.marker.position);
      view.marker.scale.setScalar(view.radius / 60);
    }
    view.renderer.render(view.scene, view.camera);
  }
  renderCount++;
}

let last = null;
function tick(now) {
  const dt = last === null ? 0 : (now - last) / 1000;
  last = now;
  if (state.playing && state.duration > 0) {
    let t = state.time + dt * state.speed;
    if (t > state.duration) {
      if (state.loop) t %= state.duration;
      else { t = state.duration; setPlaying(false); }
    }
    seek(t);
  }
  render();
  api.timings.firstRender ??= performance.now();
  if (api.firstFrameMs === null) {
    // This frame is on screen once the browser gets to the next one.
    requestAnimationFrame(() => {
      api.firstFrameMs = performance.now();
      api.isReady = true;
      resolveReady(api.firstFrameMs);
    });
  }
  requestAnimationFrame(tick);
}

// ---- controls ----

function buildClipList() {
  const names = [];
  const seen = new Set();
  for (const v of views) for (const c of v.clips) if (!seen.has(c.name)) { seen.add(c.name); names.push(c.name); }
  const list = $('clip-list');
  const frag = document.createDocumentFragment();
  for (const name of names) {
    const li = document.createElement('li');
    li.dataset.name = name;
    const owner = views.find((v) => v.clipByName.has(name));
    const clip = owner.clipByName.get(name);
    li.title = `${name}: ${clip.trackCount} tracks${clip.textures.length ? ', texture pattern' : ''}`;
    li.innerHTML = '<span class="name"></span><span class="dur"></span>';
    li.querySelector('.name').textContent = name;
    li.querySelector('.dur').textContent = `${clip.duration.toFixed(3)} s`;
    if (views.some((v) => !v.clipByName.has(name))) li.classList.add('missing');
    li.addEventListener('click', () => selectClip(name));
    frag.appendChild(li);
  }
  list.appendChild(frag);
  $('clip-count').textContent = `${names.length} clip(s)${views.length > 1 ? ' (* not in every file)' : ''}`;
  $('clip-filter').addEventListener('input', (e) => {
    const q = e.target.value.toLowerCase();
    for (const li of list.children) li.hidden = !li.dataset.name.toLowerCase().includes(q);
  });
  return names;
}

function buildBoneList() {
  const names = [];
  for (const v of views) for (const b of v.bones) if (!names.includes(b.name)) names.push(b.name);
  const select = $('bone-select');
  for (const name of names) {
    const o = document.createElement('option');
    o.textContent = name;
    o.value = name;
    select.appendChild(o);
  }
  select.addEventListener('change', () => selectBone(select.value));
  return names;
}

function wireControls() {
  $('play').addEventListener('click', () => setPlaying(!state.playing));
  $('timeline').addEventListener('input', (e) => { setPlaying(false); seek(+e.target.value); });
  $('speed').addEventListener('change', (e) => { state.speed = +e.target.value; });
  $('loop').addEventListener('change', (e) => { state.loop = e.target.checked; });
  $('curve-channel').addEventListener('change', (e) => { state.channel = e.target.value; drawCurve(); });
  $('curve').addEventListener('click', (e) => {
    const r = e.target.getBoundingClientRect();
    const t = ((e.clientX - r.left) * devicePixelRatio - 30) / ((r.width * devicePixelRatio - 40) / Math.max(state.duration, 1e-6));
    setPlaying(false);
    seek(t);
  });
  window.addEventListener('keydown', (e) => {
    if (e.code === 'Space' && e.target.tagName !== 'INPUT') { e.preventDefault(); setPlaying(!state.playing); }
  });
}

function describeFiles() {
  $('file-info').textContent = views
    .map((v) => `${v.file.name}: ${v.file.format}, ${v.clips.length} clip(s), ${v.bones.length} bone(s), ${v.file.bytes} bytes of GLB` +
      (v.file.warnings.length ? `\n  ${v.file.warnings.length} export warning(s):\n  ${v.file.warnings.join('\n  ')}` : ''))
    .join('\n\n');
}

async function main() {
  try {
    const loaded = await Promise.all(files.map((f, i) => loadView(f, i)));
    api.timings.loaded = performance.now();
    views.push(...loaded);
    wireControls();
    const clipNames = buildClipList();
    const boneNames = buildBoneList();
    describeFiles();
    if (clipNames.length) selectClip(clipNames[0]);
    // Start on the bone whose rotation moves most in the first clip (else the first bone).
    const v0 = views[0];
    const motion = (b) => {
      const track = v0.clip?.tracks.get(`${b.node}/rotation`);
      if (!track) return -1;
      let sum = 0;
      for (let c = 0; c < 4; c++) {
        let lo = Infinity;
        let hi = -Infinity;
        for (let i = c; i < track.values.length; i += 4) { lo = Math.min(lo, track.values[i]); hi = Math.max(hi, track.values[i]); }
        sum += hi - lo;
      }
      return sum;
    };
    const busiest = v0.bones.reduce((best, b) => (best === null || motion(b) > motion(best) ? b : best), null);
    selectBone(busiest?.name ?? boneNames[0] ?? null);
    for (const view of views) frameView(view);
    $('status').textContent = files.map((f) => f.name).join(' | ');
    api.timings.ui = performance.now();
    requestAnimationFrame(tick);
  } catch (e) {
    api.error = String(e?.stack ?? e);
    $('status').textContent = `error: ${e?.message ?? e}`;
    $('status').className = 'error';
    console.error(e);
  }
}

main();
