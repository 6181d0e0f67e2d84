// The apps' service worker (web/apps/offline.js registers it with scope /web/:
// the apps, the package's modules and its wasm builds): once a page has
// loaded, it works offline.
// Network first (a served update is always taken), the cache when the network
// fails. Everything same-origin that a controlled page fetches is cached; what
// the page fetched before this worker controlled it (the first visit) is sent
// by the page itself through registerOffline() (offline.js), since those
// requests never passed through here.
const CACHE = 'glint-apps-v1';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

async function store(request, response) {
  // Opaque, partial or failed responses would poison the offline copy.
  if (!response || response.status !== 200 || response.type !== 'basic') return;
  const cache = await caches.open(CACHE);
  await cache.put(request, response);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    try {
      const response = await fetch(request);
      event.waitUntil(store(request, response.clone()));
      return response;
    } catch (networkError) {
      const cached = await caches.match(request, {ignoreVary: true});
      if (cached) return cached;
      throw networkError;
    }
  })());
});

// {type: 'cache', urls: [...]}: the page's first-visit resources.
self.addEventListener('message', (event) => {
  const {type, urls} = event.data ?? {};
  if (type !== 'cache' || !Array.isArray(urls)) return;
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const sameOrigin = urls.filter((u) => new URL(u, self.location.href).origin === self.location.origin);
    await Promise.all(sameOrigin.map(async (u) => {
      if (await cache.match(u)) return;
      try {
        const response = await fetch(u);
        await store(u, response);
      } catch { /* offline already: nothing to add */ }
    }));
    event.source?.postMessage({type: 'cached', count: sameOrigin.length});
  })());
});
