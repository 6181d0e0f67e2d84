// What only node has (its file system), kept out of what a browser bundle
// sees: no module here imports node:*. The node entry (index.node.js) fills
// platform.node through node_platform.js; code that imports src/index.js
// directly in node gets it on first use, through an import no bundler follows.

export const isNode = typeof process === 'object' && process.versions != null &&
    process.versions.node != null && typeof window === 'undefined';

export const platform = {
  /** {fs, path, fileURLToPath} in node; null in pages and workers. */
  node: null,
};

/** node's modules, or an error naming `what` needs node. */
export async function nodeModules(what) {
  if (!isNode) throw new Error(`[glint] ${what} needs node (a page has no file system)`);
  if (!platform.node) {
    const name = './node_platform.js';  // a variable: bundlers leave it alone
    await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
  }
  return platform.node;
}
