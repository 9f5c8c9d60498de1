// Validates glTF/GLB files with the Khronos glTF validator (npm `gltf-validator`).
//
//   node validate.mjs FILE...
//
// Prints one JSON object: {"files": [{file, errors, warnings, infos, hints, messages}], "ok": bool}
// (messages: the first 20 issues of each file). Exits 1 when any file has an error or a warning,
// 2 when a file cannot be read.
//
// One advisory is ignored: NODE_SKINNED_MESH_NON_ROOT ("parent transforms will not affect a
// skinned mesh"). A Z-up export puts its skinned mesh under the Z-up node on purpose: viewers that
// follow the spec ignore that parent (the pose is unchanged), and Blender's importer, which places
// the armature by the mesh's parent, needs it to apply the Z-up rotation once rather than twice.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import validator from 'gltf-validator';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate.mjs FILE...');
  process.exit(2);
}

const results = [];
let ok = true;
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    console.error(`${file}: ${e.message}`);
    process.exit(2);
  }
  try {
    const report = await validator.validateBytes(bytes, {
      uri: basename(file),
      maxIssues: 0,
      ignoredIssues: ['NODE_SKINNED_MESH_NON_ROOT'],
      externalResourceFunction: () => Promise.reject(new Error('external resources are not allowed')),
    });
    const i = report.issues;
    results.push({
      file,
      errors: i.numErrors,
      warnings: i.numWarnings,
      infos: i.numInfos,
      hints: i.numHints,
      messages: i.messages.slice(0, 20).map((m) => ({ code: m.code, severity: m.severity, pointer: m.pointer, message: m.message })),
    });
    if (i.numErrors > 0 || i.numWarnings > 0) ok = false;
  } catch (e) {
    results.push({ file, errors: 1, warnings: 0, infos: 0, hints: 0, messages: [{ code: 'VALIDATOR_FAILED', message: String(e) }] });
    ok = false;
  }
}
console.log(JSON.stringify({ files: results, ok }));
process.exit(ok ? 0 : 1);
