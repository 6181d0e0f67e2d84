// What the apps' accessibility drivers (a11y_digits, a11y_sequence, a11y_doctor)
// share: axe-core (npm, pinned) run in the page for WCAG 2.1 A/AA, in light and
// dark at desktop and phone sizes; the checks axe does not make (control
// borders 3:1 against what they sit on, motion under prefers-reduced-motion,
// reflow at 320 CSS px, focus left on a control after an action); and a
// counter of what the page's live regions would say.
import path from 'node:path';
import {check, DESKTOP, PHONE, repo} from './harness.mjs';

const AXE = path.join(repo, 'node_modules/axe-core/axe.min.js');
export const NARROW = {width: 320, height: 640};   // WCAG 1.4.10: 400% of 1280 px
const WCAG21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core's WCAG 2.1 A/AA violations in the page as it is now: "rule (n): targets" strings. */
export async function axeViolations(page) {
  if (!await page.evaluate(() => typeof window.axe === 'object')) await page.addScriptTag({path: AXE});
  const r = await page.evaluate((tags) => window.axe.run(document, {runOnly: {type: 'tag', values: tags}}),
                                WCAG21_AA);
  return r.violations.map((v) => `${v.id} (${v.nodes.length}): ` +
      v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.any[0]?.message ?? n.failureSummary ?? ''}`)
          .join(' | '));
}

/**
 * Controls whose border is what shows the control (fields, selects, anything
 * else with a visible border that can take focus) against the colour behind
 * them: below 3:1 fails WCAG 1.4.11. Returns "selector ratio" strings.
 */
export function weakBorders(page) {
  return page.evaluate(() => {
    const parse = (c) => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return {r, g, b, a};
    };
    const lum = ({r, g, b}) => [r, g, b].map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    }).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const ratio = (x, y) => {
      const [hi, lo] = [lum(x), lum(y)].sort((p, q) => q - p);
      return (hi + 0.05) / (lo + 0.05);
    };
    const over = (top, under) => ({r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
                                   b: top.b * top.a + under.b * (1 - top.a), a: 1});
    /** The opaque colour behind el: its ancestors' backgrounds composed over white. */
    const behind = (el) => {
      const layers = [];
      for (let e = el.parentElement; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c.a > 0) layers.push(c);
        if (c && c.a === 1) break;
      }
      return layers.reverse().reduce((acc, c) => over(c, acc), {r: 255, g: 255, b: 255, a: 1});
    };
    const name = (el) => el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}${el.className ? '.' +
        String(el.className).trim().split(/\s+/).join('.') : ''}`;
    const out = [];
    const controls = document.querySelectorAll('input:not([type=hidden]), select, textarea, button, ' +
                                               '[tabindex]:not([tabindex="-1"]), summary');
    for (const el of controls) {
      const s = getComputedStyle(el);
      if (el.closest('[hidden]') || s.visibility === 'hidden' || s.display === 'none' || el.getClientRects().length === 0) continue;
      if (!(parseFloat(s.borderTopWidth) > 0) || s.borderTopStyle === 'none') continue;
      const border = parse(s.borderTopColor);
      if (!border || border.a === 0) continue;
      const back = behind(el);
      const r = ratio(over(border, back), back);
      if (r < 3) out.push(`${name(el)} ${r.toFixed(2)}:1`);
    }
    return out;
  });
}

/** Elements that still move with the user's "reduce motion" set (transitions or animations over 10 ms). */
export async function movingUnderReducedMotion(page) {
  await page.emulateMedia({reducedMotion: 'reduce'});
  const moving = await page.evaluate(() => {
    const secs = (v) => Math.max(0, ...v.split(',').map((t) => parseFloat(t) * (t.trim().endsWith('ms') ? 1e-3 : 1)));
    return [...document.querySelectorAll('*')].filter((e) => {
      const s = getComputedStyle(e);
      return secs(s.transitionDuration) > 0.01 || (s.animationName !== 'none' && secs(s.animationDuration) > 0.01);
    }).map((e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${e.className}`);
  });
  await page.emulateMedia({reducedMotion: 'no-preference'});
  return moving;
}

/**
 * The page in light and dark, at desktop, phone and 320 px: axe's WCAG 2.1 A/AA
 * violations, weak control borders and sideways scrolling, each a check named
 * after `when`. Leaves the page light at desktop size.
 */
export async function checkEveryLook(page, app, when) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({colorScheme: scheme});
    for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE], ['320 px', NARROW]]) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(150);   // charts redraw for the new width
      const v = await axeViolations(page);
      const weak = await weakBorders(page);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(`${app} ${when}, ${scheme}, ${size}: axe finds 0 WCAG 2.1 A/AA violations; control borders 3:1; ` +
            'no sideways scrolling', v.length === 0 && weak.length === 0 && sideways <= 0,
            [...v, ...weak.map((w) => `border ${w}`), sideways > 0 ? `${sideways} px sideways` : ''].filter(Boolean)
                .join(' ; '));
    }
  }
  await page.emulateMedia({colorScheme: 'light'});
  await page.setViewportSize(DESKTOP);
}

/** Checks that nothing moves under prefers-reduced-motion: reduce. */
export async function checkReducedMotion(page, app) {
  const moving = await movingUnderReducedMotion(page);
  check(`${app}: nothing animates under prefers-reduced-motion`, moving.length === 0, moving.slice(0, 5).join(', '));
}

/**
 * Starts counting what the live regions (aria-live, role status/alert/log/progressbar
 * with aria-valuetext excluded) would announce: each change of a region's text.
 * liveCounts(page) returns {regionName: {changes, last}}.
 */
export function countLiveRegions(page) {
  return page.evaluate(() => {
    const counts = window.__liveCounts = {};
    const regionOf = (node) => (node.nodeType === 1 ? node : node.parentElement)
        ?.closest('[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]');
    const seen = new Map();
    const observer = window.__liveObserver = new MutationObserver((records) => {
      const regions = new Set(records.map((r) => regionOf(r.target)).filter(Boolean));
      for (const region of regions) {
        const text = region.textContent.trim();
        if (seen.get(region) === text) continue;
        seen.set(region, text);
        const name = region.id ? `#${region.id}` : region.getAttribute('aria-label') ?? region.tagName;
        const c = counts[name] ??= {changes: 0, last: ''};
        ++c.changes;
        c.last = text;
      }
    });
    for (const r of document.querySelectorAll('[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]')) {
      seen.set(r, r.textContent.trim());
    }
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
  });
}

export function liveCounts(page) {
  return page.evaluate(() => {
    window.__liveObserver?.takeRecords();
    return window.__liveCounts;
  });
}

/** What has focus now: "BUTTON#train" etc., or "BODY" when focus fell to the page. */
export function focused(page) {
  return page.evaluate(() => {
    const e = document.activeElement;
    return !e || e === document.body ? 'BODY' : `${e.tagName}${e.id ? '#' + e.id : ''}` +
        (e.dataset?.digit ? `[${e.dataset.digit}]` : '');
  });
}
