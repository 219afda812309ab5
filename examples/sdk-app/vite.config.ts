import { intab } from 'intab/vite';
import { defineConfig } from 'vite';

// intab() builds the engine worker and the service worker (served at /sw.js).
export default defineConfig({ plugins: [intab()] });
