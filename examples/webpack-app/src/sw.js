import { installIntab } from 'intab/sw';

// intab first: the first fetch listener to call respondWith wins, and /v1/* is intab's. The app's
// own listeners (offline caching, push, …) go after it.
installIntab(self);
