// Workers from URLs that may be on another origin (a CDN): the Worker
// constructor refuses those, so they start through a same-origin blob.

function crossOrigin(url) {
  const page = globalThis.location?.href;
  return page !== undefined && new URL(url, page).origin !== new URL(page).origin;
}

function blobUrl(source) {
  return URL.createObjectURL(new Blob([source], {type: 'text/javascript'}));
}

/** A module worker running `url`. */
export function moduleWorker(url) {
  const href = String(url);
  return new Worker(crossOrigin(href) ? blobUrl(`import ${JSON.stringify(href)};\n`) : href, {type: 'module'});
}

/**
 * A URL a classic worker can start from that runs the classic script at `url`:
 * itself, or a blob where it is on another origin, or a data: URL (Vite inlines
 * small assets so; a worker started from one gets an opaque origin).
 */
export async function classicWorkerUrl(url) {
  if (url.startsWith('data:')) return URL.createObjectURL(await (await fetch(url)).blob());
  return crossOrigin(url) ? blobUrl(`importScripts(${JSON.stringify(url)});\n`) : url;
}
