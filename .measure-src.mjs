import * as esbuild from 'esbuild';
import { gzipSync } from 'node:zlib';
for (const dir of process.argv.slice(2)) {
  const r = await esbuild.build({ stdin: { contents: `import { VoiceSession, createApiClient } from '${dir}/src/index.ts'; globalThis.k = { VoiceSession, createApiClient };`, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent', metafile: true, external: ['simple-peer'] });
  const code = r.outputFiles[0].contents;
  console.log(dir, code.length, gzipSync(code, { level: 9 }).length);
}
