// node's side of platform.js: imported by the node entry (index.node.js), or
// on first use where src/index.js is imported directly.
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {platform} from './platform.js';

platform.node = {fs, path, fileURLToPath};
