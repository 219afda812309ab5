/** The browser matrix in Debian's Firefox ESR (puppeteer-core over WebDriver BiDi). */
import { launchFirefox } from './drivers/firefox';
import { browserMatrix } from './matrix';

browserMatrix('Firefox ESR', launchFirefox);
