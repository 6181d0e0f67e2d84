// glint-ml/worker: the engine's side of glint.worker(), a module worker's
// entry. It exports nothing; the page talks to it through glint.worker().
export {};
