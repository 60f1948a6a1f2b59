import * as esbuild from 'esbuild';
const s = await esbuild.build({ entryPoints: ['/work/wt/preconnect/src/index.ts'], bundle: true, platform: 'browser', format: 'esm', minify: true, write: false, metafile: true, logLevel: 'silent', alias: { 'simple-peer': '/work/wt/preconnect/dist/vendor/simple-peer.js' } });
const out = Object.values(s.metafile.outputs)[0];
for (const [k, v] of Object.entries(out.inputs)) if (/pre-connect|pcm-capture|realtime-events|session\.ts|microphone|timeline|report\.ts/.test(k)) console.log(k, v.bytesInOutput);
