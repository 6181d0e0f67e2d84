// "Use this model in your page": Copy buttons for the code snippets (glint-ml
// and TF.js) that load the downloaded model (glint-digits.json + .weights.bin).
export function setupSnippets() {
  const said = document.getElementById('copy-said');
  for (const button of document.querySelectorAll('button.copy')) {
    button.addEventListener('click', async () => {
      const code = document.getElementById(button.dataset.copy);
      try {
        await navigator.clipboard.writeText(code.textContent);
        said.textContent = 'Copied.';
      } catch {
        // No clipboard here (permission, insecure page): select the code for Ctrl+C.
        getSelection().selectAllChildren(code);
        said.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
      }
    });
  }
}
