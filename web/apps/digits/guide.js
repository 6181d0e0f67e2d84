// A short guided first run: four steps in a small panel under the pad (in the
// page's flow, so it covers nothing and traps no focus), each outlining the
// part of the page it talks about. Skip or finish it and it never comes back
// (localStorage); Escape inside it skips too.
export const GUIDE_KEY = 'glint-digits/guide';

const STEPS = [
  {spot: '.pad-wrap', text: 'Draw a digit on the pad, with a mouse, a finger or a pen (or the arrow keys and ' +
                            'Space on the pad).'},
  {spot: '#draw-card .verdict', text: 'See the reading under the pad (and the bars beside it): what the model ' +
                                          'reads, live, as you draw.'},
  {spot: '#teach', text: 'If it is wrong, click the right digit under the reading: the model learns from your ' +
                         'drawing on the spot.'},
  {spot: '#samples-card', text: 'Your samples and your model are kept in this browser (nothing is uploaded). ' +
                                'Export them to share, or import a class\'s samples.'},
];

export function setupGuide() {
  const $ = (id) => document.getElementById(id);
  const box = $('guide');
  let seen = null;
  try {
    seen = localStorage.getItem(GUIDE_KEY);
  } catch {
    seen = 'unavailable';   // no storage: no way to remember a dismissal, so no guide
  }
  if (seen) return;
  let step = 0, spot = null;

  function show() {
    spot?.classList.remove('guide-spot');
    spot = document.querySelector(STEPS[step].spot);
    spot?.classList.add('guide-spot');
    $('guide-step').textContent = `step ${step + 1} of ${STEPS.length}`;
    $('guide-text').textContent = STEPS[step].text;
    $('guide-next').textContent = step === STEPS.length - 1 ? 'Done' : 'Next';
    $('guide-skip').hidden = step === STEPS.length - 1;
  }

  function end(how) {
    try {
      localStorage.setItem(GUIDE_KEY, how);
    } catch { /* remembered for this page only */ }
    spot?.classList.remove('guide-spot');
    const hadFocus = box.contains(document.activeElement);
    box.hidden = true;
    if (hadFocus) $('pad').focus();   // the buttons are gone: ready to draw
  }

  $('guide-next').addEventListener('click', () => {
    if (step === STEPS.length - 1) {
      end('done');
      return;
    }
    ++step;
    show();
  });
  $('guide-skip').addEventListener('click', () => end('skipped'));
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') end('skipped');
  });
  box.hidden = false;
  show();
}
