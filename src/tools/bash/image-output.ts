/**
 * A command whose whole output is an image — raw PNG/JPEG bytes, or a `data:image/…;base64,` URL — comes back as an
 * image block. Images the API would refuse (over ~5 MB encoded, or a side over 8,000 px) are scaled down first, so
 * one screenshot cannot poison every later request; one that cannot be decoded becomes a text note instead.
 */
import { readFileSync } from 'node:fs';
import { isImageMediaType, type ImageMediaType } from '../../tool/tool-result.js';

export interface ImageOutput {
  readonly base64: string;
  readonly mediaType: ImageMediaType;
  /** Set when the image was scaled down or re-encoded. */
  readonly note?: string;
}

/** Raw image files beyond this are not turned into blocks (the text path reports the size and the file). */
export const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;
const MAX_ENCODED_BYTES = 5 * 1024 * 1024;
const MAX_RAW_BYTES = Math.floor((MAX_ENCODED_BYTES * 3) / 4);
const MAX_SIDE = 8_000;
const RESIZE_TO = 2_000;

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const DATA_URL = /^data:(image\/[a-z+.-]+);base64,([A-Za-z0-9+/=\s]+)$/;

export function sniffImageBytes(head: Buffer): ImageMediaType | undefined {
  if (head.subarray(0, PNG_MAGIC.length).equals(PNG_MAGIC)) return 'image/png';
  if (head.subarray(0, JPEG_MAGIC.length).equals(JPEG_MAGIC)) return 'image/jpeg';
  return undefined;
}

/** Looks at the start of the output; undefined when it is not an image (the usual case, decided without I/O). */
export async function detectImageOutput(outputFile: string, head: Buffer, sizeBytes: number): Promise<ImageOutput | undefined> {
  const raw = sniffImageBytes(head);
  if (raw !== undefined) {
    if (sizeBytes > MAX_IMAGE_FILE_BYTES) return undefined;
    return normalise(readFileSync(outputFile), raw);
  }
  const start = head.subarray(0, 64).toString('latin1').trimStart();
  if (!start.startsWith('data:image/')) return undefined;
  if (sizeBytes > MAX_IMAGE_FILE_BYTES) return undefined;
  const match = DATA_URL.exec(readFileSync(outputFile, 'latin1').trim());
  if (match === null) return undefined;
  const mediaType = match[1]!;
  const data = Buffer.from(match[2]!.replace(/\s+/g, ''), 'base64');
  if (!isImageMediaType(mediaType) || data.length === 0) return undefined;
  return normalise(data, mediaType);
}

async function normalise(data: Buffer, mediaType: ImageMediaType): Promise<ImageOutput | undefined> {
  let width: number | undefined;
  let height: number | undefined;
  let sharp: (typeof import('sharp'))['default'];
  try {
    sharp = (await import('sharp')).default;
    const meta = await sharp(data).metadata();
    width = meta.width;
    height = meta.height;
  } catch {
    // Not decodable: fall back to passing small images through untouched (the API decides), big ones as text.
    return data.length <= MAX_RAW_BYTES ? { base64: data.toString('base64'), mediaType } : undefined;
  }
  const tooBig = data.length > MAX_RAW_BYTES || (width ?? 0) > MAX_SIDE || (height ?? 0) > MAX_SIDE;
  if (!tooBig) return { base64: data.toString('base64'), mediaType };
  try {
    const resized = await sharp(data)
      .resize({ width: RESIZE_TO, height: RESIZE_TO, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 80 })
      .toBuffer();
    return {
      base64: resized.toString('base64'),
      mediaType: 'image/jpeg',
      note: `image scaled down from ${width ?? '?'}x${height ?? '?'} (${data.length} bytes) to fit the API's limits`,
    };
  } catch {
    return undefined;
  }
}
