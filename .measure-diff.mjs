import * as esbuild from 'esbuild';
const res = {};
for (const dir of process.argv.slice(2)) {
  const r = await esbuild.build({ stdin: { contents: `import { VoiceSession, createApiClient } from '${dir}/src/index.ts'; globalThis.k = { VoiceSession, createApiClient };`, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent', metafile: true, external: ['simple-peer'] });
  const ins = Object.values(r.metafile.outputs)[0].inputs;
  res[dir] = Object.fromEntries(Object.entries(ins).map(([k, v]) => [k.replace(/^.*?\/src\//, 'src/'), v.bytesInOutput]));
}
const [a, b] = process.argv.slice(2);
const keys = new Set([...Object.keys(res[a]), ...Object.keys(res[b])]);
for (const k of keys) { const d = (res[b][k] ?? 0) - (res[a][k] ?? 0); if (d) console.log(String(d).padStart(6), k); }
