import * as esbuild from 'esbuild';
import { gzipSync } from 'node:zlib';
const r = await esbuild.build({ stdin: { contents: "import { VoiceSession, createApiClient } from './dist/index.js';\nglobalThis.k = { VoiceSession, createApiClient };", resolveDir: process.cwd() }, bundle: true, minify: true, format: 'esm', write: false, platform: 'browser', metafile: true });
const text = r.outputFiles[0].contents;
console.log('gzip', gzipSync(text, { level: 9 }).length, 'min', text.length);
if (process.argv[2]) { const inputs = Object.entries(r.metafile.outputs[Object.keys(r.metafile.outputs)[0]].inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput).slice(0,+process.argv[2]); for (const [k,v] of inputs) console.log(v.bytesInOutput, k); }
