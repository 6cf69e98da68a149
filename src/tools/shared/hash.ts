import { nodeCrypto } from '../../tool/crypto.js';

/** sha256 (hex) of a file's bytes: the identity `readFileState` records and Edit/Write compare against. */
export function sha256(bytes: Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(bytes).digest('hex');
}
