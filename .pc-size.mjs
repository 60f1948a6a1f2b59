import * as esbuild from 'esbuild';
import { gzipSync } from 'node:zlib';
const r = await esbuild.build({ entryPoints: ['/work/wt/preconnect/dist/index.js'], bundle: true, platform: 'browser', format: 'esm', minify: true, write: false, logLevel: 'silent' });
console.log('dist', gzipSync(r.outputFiles[0].contents, { level: 9 }).length);
const s = await esbuild.build({ entryPoints: ['/work/wt/preconnect/src/index.ts'], bundle: true, platform: 'browser', format: 'esm', minify: true, write: false, logLevel: 'silent', alias: { 'simple-peer': '/work/wt/preconnect/dist/vendor/simple-peer.js' } });
console.log('src', gzipSync(s.outputFiles[0].contents, { level: 9 }).length);
