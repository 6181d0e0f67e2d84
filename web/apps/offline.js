// Makes an app page work offline once loaded (web/offline-sw.js, whose scope,
// /web/, holds the apps and the package, so a glint.worker() and the threads
// build's workers are controlled too). Call after the app has fetched what it
// needs (model, data, wasm): those first-visit resources are handed to the
// service worker to cache; pass what a glint.worker() fetched as extraUrls
// (`await g.loadedResources()`), since the page's own entries do not list it.
// Resolves to the number of URLs handed over, or 0 without service workers.
export async function registerOffline(extraUrls = []) {
  if (!('serviceWorker' in navigator)) return 0;
  const registration = await navigator.serviceWorker.register(
      new URL('../offline-sw.js', import.meta.url), {scope: new URL('../', import.meta.url).pathname});
  await navigator.serviceWorker.ready;
  const worker = registration.active;
  if (!worker) return 0;
  const urls = [location.href, ...extraUrls,
                ...performance.getEntriesByType('resource').map((e) => e.name)];
  const unique = [...new Set(urls.map((u) => new URL(u, location.href).href))];
  return new Promise((resolve) => {
    const onMessage = (event) => {
      if (event.data?.type !== 'cached') return;
      navigator.serviceWorker.removeEventListener('message', onMessage);
      resolve(event.data.count);
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    worker.postMessage({type: 'cache', urls: unique});
  });
}
