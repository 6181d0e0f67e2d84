// Starts glint.worker()'s engine worker. Written out in full: the form
// bundlers (Vite, webpack; esbuild's and rollup's plugins) recognise and turn
// into a bundled worker of its own. The CDN bundle (scripts/cdn_bundle.mjs)
// uses worker_start_cdn.js instead.
export function startEngineWorker() {
  return new Worker(new URL('./worker_main.js', import.meta.url), {type: 'module'});
}
