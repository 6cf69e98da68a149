/**
 * Images as image blocks, normalised so that one oversized screenshot cannot make every later request fail: an image
 * whose long edge exceeds 8000 px or whose base64 exceeds 5 MB is scaled to a 2000 px long edge; if it is still too
 * large it is re-encoded as JPEG at falling quality. The media type comes from the bytes, not the extension (the API
 * rejects a PNG labelled image/jpeg).
 */
import type fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ImageMediaType } from '../../tool/tool-result.js';
import { FileToolError } from '../shared/errors.js';
import { readWholeFile } from '../shared/file-kind.js';
import { formatBytes } from '../shared/format.js';
import type { ImageFileOutput } from './read-output.js';

export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

export const IMAGE_LIMITS = {
  /** The API refuses images with a longer edge. */
  maxEdgePx: 8000,
  /** The API refuses base64 payloads larger than this. */
  maxBase64Bytes: 5 * 1024 * 1024,
  /** Long edge an oversized image is scaled to. */
  resizeEdgePx: 2000,
  /** Files larger than this are not even decoded. */
  maxFileBytes: 100 * 1024 * 1024,
} as const;

const JPEG_QUALITIES = [80, 60, 40, 20] as const;

function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

function mediaTypeOf(format: string | undefined): ImageMediaType | undefined {
  switch (format) {
    case 'png':
      return 'image/png';
    case 'jpeg':
    case 'jpg':
      return 'image/jpeg';
    case 'gif':
      return 'image/gif';
    case 'webp':
      return 'image/webp';
    default:
      return undefined;
  }
}

type Sharp = (typeof import('sharp'))['default'];

/** Loaded on first use: the native module costs tens of milliseconds, and most reads are text. */
async function loadSharp(): Promise<Sharp> {
  return (await import('sharp')).default;
}

export async function readImage(handle: FileHandle, absPath: string, stats: fs.Stats): Promise<ImageFileOutput> {
  if (stats.size === 0) throw new FileToolError('Empty image files cannot be processed.', 'EMPTY_IMAGE');
  if (stats.size > IMAGE_LIMITS.maxFileBytes) {
    throw new FileToolError(
      `Image file (${formatBytes(stats.size)}) exceeds the maximum image size this tool decodes (${formatBytes(IMAGE_LIMITS.maxFileBytes)}).`,
      'IMAGE_TOO_LARGE',
    );
  }
  const bytes = await readWholeFile(handle, IMAGE_LIMITS.maxFileBytes, stats.size);
  const sharp = await loadSharp();
  let meta: { format?: string; width?: number; height?: number };
  try {
    meta = await sharp(bytes).metadata();
  } catch (error) {
    throw new FileToolError(`Could not decode image ${absPath}: ${(error as Error).message}`, 'IMAGE_DECODE');
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const mediaType = mediaTypeOf(meta.format);
  const tooLong = Math.max(width, height) > IMAGE_LIMITS.maxEdgePx;
  const tooHeavy = base64Length(bytes.length) > IMAGE_LIMITS.maxBase64Bytes;
  if (mediaType && !tooLong && !tooHeavy) {
    return {
      filePath: absPath,
      base64: bytes.toString('base64'),
      type: mediaType,
      originalSize: stats.size,
      dimensions: { originalWidth: width, originalHeight: height, displayWidth: width, displayHeight: height },
      adjustment: '',
    };
  }

  const reasons: string[] = [];
  if (tooLong) reasons.push(`its long edge exceeds ${IMAGE_LIMITS.maxEdgePx} px`);
  if (tooHeavy) reasons.push(`its base64 exceeds ${formatBytes(IMAGE_LIMITS.maxBase64Bytes)}`);
  if (!mediaType) reasons.push(`${meta.format ?? 'its format'} is not an API image type`);
  try {
    const resized = () =>
      sharp(bytes).resize({ width: IMAGE_LIMITS.resizeEdgePx, height: IMAGE_LIMITS.resizeEdgePx, fit: 'inside', withoutEnlargement: true });
    // First try: same format (GIF and unsupported formats become PNG), scaled down.
    let out: { data: Buffer; info: { width: number; height: number } };
    let outType: ImageMediaType;
    if (mediaType === 'image/jpeg') [out, outType] = [await resized().jpeg({ quality: 85 }).toBuffer({ resolveWithObject: true }), 'image/jpeg'];
    else if (mediaType === 'image/webp') [out, outType] = [await resized().webp().toBuffer({ resolveWithObject: true }), 'image/webp'];
    else [out, outType] = [await resized().png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true }), 'image/png'];
    let how = `scaled to ${out.info.width}x${out.info.height}`;
    for (const quality of JPEG_QUALITIES) {
      if (base64Length(out.data.length) <= IMAGE_LIMITS.maxBase64Bytes) break;
      out = await resized().flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer({ resolveWithObject: true });
      outType = 'image/jpeg';
      how = `scaled to ${out.info.width}x${out.info.height} and re-encoded as JPEG (quality ${quality})`;
    }
    if (base64Length(out.data.length) > IMAGE_LIMITS.maxBase64Bytes) {
      throw new FileToolError(`Image ${absPath} is still larger than the API allows after scaling and JPEG re-encoding.`, 'IMAGE_TOO_LARGE');
    }
    return {
      filePath: absPath,
      base64: out.data.toString('base64'),
      type: outType,
      originalSize: stats.size,
      dimensions: { originalWidth: width, originalHeight: height, displayWidth: out.info.width, displayHeight: out.info.height },
      adjustment: `[Image ${width}x${height} (${formatBytes(stats.size)}) was ${how} because ${reasons.join(' and ')}. Coordinates in this view are scaled by ${(out.info.width / Math.max(1, width)).toFixed(4)}.]`,
    };
  } catch (error) {
    if (error instanceof FileToolError) throw error;
    throw new FileToolError(`Could not resize image ${absPath}: ${(error as Error).message}`, 'IMAGE_RESIZE');
  }
}
