/**
 * The browser matrix in WebKitGTK set up like Safari: the Storage API (OPFS) and SharedArrayBuffer
 * on (tests/browsers/drivers/webkit.ts).
 */
import { launchWebKit } from './drivers/webkit';
import { browserMatrix } from './matrix';

browserMatrix('WebKitGTK Safari-like', () => launchWebKit({ safariLike: true }));
