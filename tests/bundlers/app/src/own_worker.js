// The app's own worker, importing glint-ml like any module would.
import {learnLine} from './task.js';

learnLine().then((r) => postMessage(r), (e) => postMessage({error: String(e && e.stack || e)}));
