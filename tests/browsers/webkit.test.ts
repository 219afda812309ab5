/** The browser matrix in WebKitGTK as Debian ships it (WebKitWebDriver, MiniBrowser under Xvfb). */
import { launchWebKit } from './drivers/webkit';
import { browserMatrix } from './matrix';

browserMatrix('WebKitGTK', () => launchWebKit({ safariLike: false }));
