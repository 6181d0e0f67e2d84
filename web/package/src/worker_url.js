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
