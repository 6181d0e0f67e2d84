// tf.serialization: registerClass lets a loaded model rebuild a custom layer
// (custom_layer.js).
import {registerClass} from './custom_layer.js';

export const serialization = {registerClass};
