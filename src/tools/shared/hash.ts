import { nodeCrypto } from '../../tool/crypto.js';

/**
 * sha256 (hex) of a file's bytes: the identity `readFileState` records and Edit/Write compare against. The one-shot
 * `hash` (Node 20.12+; engines say 20.19), not createHash(): no Hash object per call on the path of every Read and edit.
 */
export function sha256(bytes: Uint8Array): string {
  return nodeCrypto().hash('sha256', bytes, 'hex');
}
