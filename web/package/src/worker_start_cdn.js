// worker_start.js for the CDN bundle (dist/glint.mjs): a worker's script must
// come from the page's origin, so one served by a CDN starts through a
// same-origin blob that imports it (the CDN answers with CORS).
import {moduleWorker} from './worker_url.js';

export function startEngineWorker() {
  return moduleWorker(new URL('./worker_main.js', import.meta.url).href);
}
