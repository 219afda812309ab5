// webpack 5 bundles intab's engine worker by itself: lib/index.js starts it with
// `new Worker(new URL('./engine-worker.js', import.meta.url))`, which webpack follows.
import { copyFileSync } from 'node:fs';
import { resolve } from 'node:path';

export default {
  entry: {
    main: './src/main.js',
    // The app's own service worker, which carries intab's handler: a script of its own at the root.
    sw: './src/sw.js',
  },
  output: {
    path: resolve(import.meta.dirname, 'dist'),
    filename: '[name].js',
    clean: true,
  },
  plugins: [
    {
      apply: (compiler) =>
        compiler.hooks.afterEmit.tap('copy-index-html', () => copyFileSync('index.html', 'dist/index.html')),
    },
  ],
  // web-llm is a 6 MB lazy chunk of the engine worker, loaded only when its models are used.
  performance: { hints: false },
};
