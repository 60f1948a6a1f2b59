// webpack 5 as an app would configure it: nothing kb-voice-specific. webpack follows the literal
// new URL('./…', import.meta.url) of kb-voice/noise and emits the worklet and the WebAssembly as assets.
import { fileURLToPath } from 'node:url';

export default {
  mode: 'production',
  context: fileURLToPath(new URL('.', import.meta.url)),
  entry: './main.js',
  output: { path: fileURLToPath(new URL('./dist', import.meta.url)), filename: 'main.js', publicPath: 'auto', clean: true },
  experiments: { outputModule: true },
  devtool: false,
  performance: { hints: false },
  // Not for users: this app lives inside the kb-voice repository, whose tsconfig.json maps `kb-voice` to its
  // sources, and webpack applies the nearest tsconfig's paths. An app of its own has no such mapping.
  resolve: { tsconfig: false },
};
