/** The browser matrix in Debian's Chromium (playwright-core). */
import { launchChromiumSession } from './drivers/chromium';
import { browserMatrix } from './matrix';

browserMatrix('Chromium', launchChromiumSession);
